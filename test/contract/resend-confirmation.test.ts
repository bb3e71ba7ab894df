import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ATTEMPT_LIMITS } from '../../src/domain/accounts/auth-throttle.js';
import {
  type AccountsHarness,
  freshEmail,
  signedUpSession,
  signedUpUnconfirmed,
  signIn,
  startAccountsHarness,
  tokenIn,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const resend = (email: string) => h.request('POST', '/v1/auth/confirm/resend', { body: { email } });

/** Mails so far to `email`; a mail is sent in the background, so a test first waits for a later mail it caused. */
const mailsTo = (email: string) => h.smtp.received.filter((m) => m.envelopeTo.includes(email)).length;

describe('POST /v1/auth/confirm/resend', () => {
  it('202: a new confirmation link for an unconfirmed address, which works', async () => {
    const email = freshEmail('resend');
    await signedUpUnconfirmed(h, email);
    expect(expectNativeOk(await resend(email), 202)).toEqual({ status: 'accepted' });
    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    expectNativeOk(await h.request('POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } }));
    expectNativeOk(await signIn(h, email), 201);
  });

  it('202, the same answer, and no mail for an unknown or an already confirmed address', async () => {
    const { email } = await signedUpSession(h);
    const unknown = freshEmail('nobody');
    const before = mailsTo(email);
    const answers = [await resend(email), await resend(unknown)].map((r) => expectNativeOk(r, 202));
    expect(answers[0]).toEqual(answers[1]);
    // A later mail to a third address, sent after both: by then any mail the two caused would have been sent.
    const marker = freshEmail('marker');
    await signedUpUnconfirmed(h, marker);
    expect(mailsTo(email)).toBe(before);
    expect(mailsTo(unknown)).toBe(0);
  });

  it('429 auth_rate_limited with Retry-After for another mail within the cooldown: none is sent; one is after it', async () => {
    const email = freshEmail('impatient');
    await signedUpUnconfirmed(h, email);
    expectNativeOk(await resend(email), 202);
    expect((await h.mailTo(email)).subject).toBe('Confirm your email address');
    const before = mailsTo(email);
    const refused = await resend(email); // from another client address: the cooldown is the email's own
    expectNativeError(refused, 429, 'auth_rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(AUTH_ATTEMPT_LIMITS.confirmationResendCooldown.windowMs / 1000);
    // A later mail to a third address, caused after the refusal: by then a mail it caused would have been sent.
    await signedUpUnconfirmed(h, freshEmail('marker'));
    expect(mailsTo(email)).toBe(before);
    h.advance(retryAfter * 1000);
    expectNativeOk(await resend(email), 202);
    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    expectNativeOk(await h.request('POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } }));
  });

  it('400 invalid_request: no address, or not an address', async () => {
    expectNativeError(await h.request('POST', '/v1/auth/confirm/resend', { body: {} }), 400, 'invalid_request');
    expectNativeError(await resend('not-an-address'), 400, 'invalid_email');
  });
});

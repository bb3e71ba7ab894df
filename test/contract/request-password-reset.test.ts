import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ATTEMPT_LIMITS } from '../../src/domain/accounts/auth-throttle.js';
import {
  type AccountsHarness,
  freshEmail,
  signedUpSession,
  signedUpUnconfirmed,
  startAccountsHarness,
  tokenIn,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const requestReset = (email: string) => h.request('POST', '/v1/auth/password-reset', { body: { email } });

describe('POST /v1/auth/password-reset', () => {
  it('202: mails a one-hour link to set a new password', async () => {
    const { email } = await signedUpSession(h);
    expect(expectNativeOk(await requestReset(email.toUpperCase()), 202)).toEqual({ status: 'accepted' });
    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('Set a new password');
    expect(mail.text).toMatch(/\/password-reset\?token=/);
    const body = { token: tokenIn(mail), password: 'a brand new passphrase' };
    expectNativeOk(await h.request('POST', '/v1/auth/password-reset/confirm', { body }));
  });

  it('202, the same answer, and no mail for an address with no account', async () => {
    const { email } = await signedUpSession(h);
    const unknown = freshEmail('nobody');
    const known = expectNativeOk(await requestReset(email), 202);
    expect(expectNativeOk(await requestReset(unknown), 202)).toEqual(known);
    await h.mailTo(email);
    // A mail caused after both has arrived: any mail to the unknown address would have been sent before it.
    const marker = freshEmail('marker');
    await signedUpUnconfirmed(h, marker);
    expect(h.smtp.received.some((m) => m.envelopeTo.includes(unknown))).toBe(false);
  });

  it('429 auth_rate_limited with Retry-After past the reset mails of one address: none is sent; one is after the window', async () => {
    const { limit, windowMs } = AUTH_ATTEMPT_LIMITS.passwordResetPerEmail;
    const { email } = await signedUpSession(h);
    const resetMails = () =>
      h.smtp.received.filter((m) => m.envelopeTo.includes(email) && m.subject === 'Set a new password').length;
    for (let i = 0; i < limit; i++) expectNativeOk(await requestReset(email), 202);
    const refused = await requestReset(email);
    expectNativeError(refused, 429, 'auth_rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
    for (let read = 0; read < limit; ) if ((await h.mailTo(email)).subject === 'Set a new password') read++;
    // A mail caused after the refusal has arrived: by then a mail the refused request caused would have been sent.
    await signedUpUnconfirmed(h, freshEmail('marker'));
    expect(resetMails()).toBe(limit);
    h.advance(retryAfter * 1000);
    expectNativeOk(await requestReset(email), 202);
    expect((await h.mailTo(email)).subject).toBe('Set a new password');
  });

  it('400 invalid_request: no address, not an address, an unknown field', async () => {
    const path = '/v1/auth/password-reset';
    expectNativeError(await h.request('POST', path, { body: {} }), 400, 'invalid_request');
    expectNativeError(await requestReset('nobody@'), 400, 'invalid_email');
    const extra = { email: freshEmail(), password: 'x' };
    expectNativeError(await h.request('POST', path, { body: extra }), 400, 'invalid_request');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ATTEMPT_LIMITS } from '../../src/domain/accounts/auth-throttle.js';
import {
  type AccountsHarness,
  freshEmail,
  PASSWORD,
  signedUpSession,
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

const signUp = (body: unknown) => h.request('POST', '/v1/auth/signup', { body });

describe('POST /v1/auth/signup', () => {
  it('202: mails a confirmation link; the account signs in only once it is followed', async () => {
    const email = freshEmail('signup');
    expect(expectNativeOk(await signUp({ email, password: PASSWORD }), 202)).toEqual({ status: 'accepted' });
    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    expect(mail.text).toMatch(/\/confirm\?token=/);
    expectNativeError(await signIn(h, email), 403, 'email_unconfirmed');
    expectNativeOk(await h.request('POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } }));
    expectNativeOk(await signIn(h, email), 201);
  });

  it('202: the address is compared lower-cased and trimmed', async () => {
    const email = freshEmail('mixed');
    expectNativeOk(await signUp({ email: email.toUpperCase(), password: PASSWORD }), 202);
    await h.request('POST', '/v1/auth/confirm', { body: { token: tokenIn(await h.mailTo(email)) } });
    expectNativeOk(await signIn(h, email), 201);
  });

  it('202 for a registered address too, the same answer; its owner is mailed a reset link, nothing changes', async () => {
    const { email } = await signedUpSession(h);
    const fresh = await signUp({ email: freshEmail('other'), password: PASSWORD });
    const again = await signUp({ email, password: 'another long passphrase' });
    expect(expectNativeOk(again, 202)).toEqual(expectNativeOk(fresh, 202));
    expect(again.body.message).toBe(fresh.body.message);
    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('You already have an account');
    expect(mail.text).toMatch(/\/password-reset\?token=/);
    // The second sign-up's password does not replace the owner's.
    expectNativeError(await signIn(h, email, 'another long passphrase'), 401, 'invalid_credentials');
    expectNativeOk(await signIn(h, email), 201);
    // The reset link works: it sets a new password.
    const reset = { token: tokenIn(mail), password: 'the owner chose this one' };
    expectNativeOk(await h.request('POST', '/v1/auth/password-reset/confirm', { body: reset }));
    expectNativeOk(await signIn(h, email, 'the owner chose this one'), 201);
  });

  it('202: an account the operator made, with no login yet, gets this login once its mailbox confirms it', async () => {
    const email = freshEmail('operator-made');
    const { accountId, apiKey } = await h.newAccount(email);
    expectNativeOk(await signUp({ email, password: PASSWORD }), 202);
    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    expectNativeOk(await h.request('POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } }));
    const { access_token } = expectNativeOk(await signIn(h, email), 201);
    const account = expectNativeOk(await h.request('GET', '/v1/account', { key: access_token }));
    expect(account.account_id).toBe(accountId);
    expectNativeOk(await h.request('GET', '/v1/account', { key: apiKey }));
  });

  it('202 for both of two sign-ups of one address at once: one confirmation link, one "already registered"', async () => {
    const email = freshEmail('race');
    const answers = await Promise.all([
      signUp({ email, password: PASSWORD }),
      signUp({ email, password: 'the other racer passphrase' }),
    ]);
    for (const answer of answers) expectNativeOk(answer, 202);
    const subjects = [(await h.mailTo(email)).subject, (await h.mailTo(email)).subject].sort();
    expect(subjects).toEqual(['Confirm your email address', 'You already have an account']);
  });

  it('202 for the address of a deleted account: it signs up afresh', async () => {
    const first = await signedUpSession(h);
    const body = { password: PASSWORD };
    expectNativeOk(await h.request('DELETE', '/v1/account', { key: first.access_token, body }));
    expectNativeOk(await signUp({ email: first.email, password: 'a fresh start passphrase' }), 202);
    const mail = await h.mailTo(first.email);
    expect(mail.subject).toBe('Confirm your email address');
    expectNativeOk(await h.request('POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } }));
    expectNativeOk(await signIn(h, first.email, 'a fresh start passphrase'), 201);
  });

  it('429 auth_rate_limited with Retry-After past the sign-ups of one client address; the refused one made nothing', async () => {
    const { limit, windowMs } = AUTH_ATTEMPT_LIMITS.signUpPerAddress;
    const headers = { 'x-forwarded-for': '203.0.113.21' };
    const signUpFrom = (email: string, password = PASSWORD) =>
      h.request('POST', '/v1/auth/signup', { body: { email, password }, headers });
    for (let i = 0; i < limit; i++) expectNativeOk(await signUpFrom(freshEmail('crowd')), 202);
    const email = freshEmail('refused');
    const refused = await signUpFrom(email, 'the refused passphrase');
    expectNativeError(refused, 429, 'auth_rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
    // No account was made: from elsewhere the address signs up as new, and only that sign-up's password works.
    expectNativeOk(await signUp({ email, password: PASSWORD }), 202);
    const mail = await h.mailTo(email);
    expect(mail.subject).toBe('Confirm your email address');
    expectNativeOk(await h.request('POST', '/v1/auth/confirm', { body: { token: tokenIn(mail) } }));
    expectNativeOk(await signIn(h, email), 201);
    expectNativeError(await signIn(h, email, 'the refused passphrase'), 401, 'invalid_credentials');
    // Once the window has moved on, the client address may sign up again.
    h.advance(retryAfter * 1000);
    expectNativeOk(await signUpFrom(freshEmail('later')), 202);
  });

  it('400 weak_password: too short, too common, too long, naming the rule in meta.rule; no account made', async () => {
    const cases = [
      ['short pass', 'too_short'],
      ['password1234', 'too_common'],
      ['x'.repeat(257), 'too_long'],
    ] as const;
    for (const [password, rule] of cases) {
      const email = freshEmail('weak');
      const response = await signUp({ email, password });
      expectNativeError(response, 400, 'weak_password');
      expect(response.body.data.meta.rule).toBe(rule);
      expectNativeError(await signIn(h, email, password), 401, 'invalid_credentials');
    }
  });

  it('400: a body breaking the contract (invalid_request), an address mail cannot reach (invalid_email)', async () => {
    const email = freshEmail('bad');
    expectNativeError(await signUp({ email }), 400, 'invalid_request');
    expectNativeError(await signUp({ email, password: PASSWORD, name: 'x' }), 400, 'invalid_request');
    for (const address of ['not an address', 'someone@localhost']) {
      const response = await signUp({ email: address, password: PASSWORD });
      expectNativeError(response, 400, 'invalid_email');
      expect(response.body.data.error).toMatch(/email/);
    }
  });

  it('413 and 415: a body over 16 KiB, a body that is not JSON', async () => {
    const huge = { email: freshEmail('big'), password: 'p'.repeat(17_000) };
    expectNativeError(await signUp(huge), 413, 'request_too_large');
    const form = { rawBody: 'email=a@b.c', headers: { 'content-type': 'application/x-www-form-urlencoded' } };
    expectNativeError(await h.request('POST', '/v1/auth/signup', form), 415, 'unsupported_media_type');
  });
});

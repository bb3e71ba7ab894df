import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ATTEMPT_LIMITS } from '../../src/domain/accounts/auth-throttle.js';
import {
  type AccountsHarness,
  freshEmail,
  PASSWORD,
  setCookies,
  signedUpSession,
  signedUpUnconfirmed,
  signIn,
  startAccountsHarness,
  totpCode,
  withTotp,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const listSessions = (accessToken: string) => h.request('GET', '/v1/auth/sessions', { key: accessToken });

describe('POST /v1/auth/sessions', () => {
  it('201: tokens in the body, a session that works and is listed with its client', async () => {
    const { email } = await signedUpSession(h);
    const response = await signIn(h, email);
    const data = expectNativeOk(response, 201);
    expect(data).toMatchObject({ token_type: 'Bearer', expires_in: 900 });
    expect(data.access_token).toMatch(/^cgw_at_[0-9A-Za-z]{43}$/);
    expect(data.refresh_token).toMatch(/^cgw_rt_[0-9A-Za-z]{43}$/);
    expect(data.refresh_expires_in).toBeGreaterThan(data.expires_in);
    expect(data.session).toMatchObject({ current: true, user_agent: 'contract-tests/1' });
    expect(response.headers.get('set-cookie')).toBeNull();
    const { sessions } = expectNativeOk(await listSessions(data.access_token));
    expect(sessions.map((s: { id: string }) => s.id)).toContain(data.session.id);
  });

  it('201 with session_cookie: httpOnly, Secure, SameSite=Strict cookies, and no tokens in the body', async () => {
    const { email } = await signedUpSession(h);
    const response = await signIn(h, email, PASSWORD, { session_cookie: true });
    const data = expectNativeOk(response, 201);
    expect(data).not.toHaveProperty('access_token');
    expect(data).not.toHaveProperty('refresh_token');
    const { cgw_session: session, cgw_refresh: refresh } = setCookies(response);
    expect(session!.value).toMatch(/^cgw_at_/);
    expect(refresh!.value).toMatch(/^cgw_rt_/);
    for (const cookie of [session!, refresh!])
      expect(cookie.attributes).toMatchObject({ httponly: true, secure: true, samesite: 'Strict' });
    expect(session!.attributes.path).toBe('/');
    expect(refresh!.attributes.path).toBe('/v1/auth');
    const listed = await h.request('GET', '/v1/auth/sessions', {
      headers: { cookie: `cgw_session=${session!.value}` },
    });
    expect(expectNativeOk(listed).sessions.find((s: { current: boolean }) => s.current).id).toBe(data.session.id);
  });

  it('201: the address is matched whatever its case', async () => {
    const { email } = await signedUpSession(h);
    expectNativeOk(await signIn(h, email.toUpperCase()), 201);
  });

  it('401 invalid_credentials: an unknown address and a wrong password get the same answer', async () => {
    const { email } = await signedUpSession(h);
    const wrong = await signIn(h, email, 'not the passphrase at all');
    const unknown = await signIn(h, freshEmail('nobody'));
    expectNativeError(wrong, 401, 'invalid_credentials');
    expectNativeError(unknown, 401, 'invalid_credentials');
    expect(wrong.body.data.error).toBe(unknown.body.data.error);
  });

  it('403 email_unconfirmed: the right password for an address not confirmed yet (a wrong one is still 401)', async () => {
    const email = freshEmail('unconfirmed');
    await signedUpUnconfirmed(h, email);
    expectNativeError(await signIn(h, email), 403, 'email_unconfirmed');
    expectNativeError(await signIn(h, email, 'not the passphrase at all'), 401, 'invalid_credentials');
  });

  it('401 totp_required: the right password of an account with a second factor, and no code', async () => {
    const { email, access_token } = await signedUpSession(h);
    await withTotp(h, access_token);
    expectNativeError(await signIn(h, email), 401, 'totp_required');
    // The password is checked first: a wrong one does not learn a second factor exists.
    expectNativeError(await signIn(h, email, 'not the passphrase at all'), 401, 'invalid_credentials');
  });

  it('401 invalid_totp: a wrong code, and a right code used a second time', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { secret } = await withTotp(h, access_token);
    const code = totpCode(h, secret);
    const wrong = code === '000000' ? '111111' : '000000';
    expectNativeError(await signIn(h, email, PASSWORD, { totp: wrong }), 401, 'invalid_totp');
    expectNativeOk(await signIn(h, email, PASSWORD, { totp: code }), 201);
    expectNativeError(await signIn(h, email, PASSWORD, { totp: code }), 401, 'invalid_totp');
    expectNativeOk(await signIn(h, email, PASSWORD, { totp: totpCode(h, secret) }), 201);
  });

  it('201 with a recovery code instead of a code, once', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { recoveryCodes } = await withTotp(h, access_token);
    expectNativeOk(await signIn(h, email, PASSWORD, { totp: recoveryCodes[3] }), 201);
    expectNativeError(await signIn(h, email, PASSWORD, { totp: recoveryCodes[3] }), 401, 'invalid_totp');
    expectNativeOk(await signIn(h, email, PASSWORD, { totp: recoveryCodes[4] }), 201);
  });

  it('201 for exactly one of two sign-ins racing with one code, and with one recovery code', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { secret, recoveryCodes } = await withTotp(h, access_token);
    for (const totp of [totpCode(h, secret), recoveryCodes[0]]) {
      const racers = await Promise.all([1, 2].map(() => signIn(h, email, PASSWORD, { totp })));
      expect(racers.map((r) => r.status).sort()).toEqual([201, 401]);
      expectNativeError(racers.find((r) => r.status === 401)!, 401, 'invalid_totp');
    }
  });

  it('429 auth_rate_limited with Retry-After past the attempts on one account, the right password too; then it signs in', async () => {
    const { limit, windowMs } = AUTH_ATTEMPT_LIMITS.signInPerEmail;
    const { email, access_token } = await signedUpSession(h); // the window's first attempt
    // Each from a client address of its own: the account's window, not an address's, fills.
    for (let i = 1; i < limit; i++)
      expectNativeError(await signIn(h, email, 'not the passphrase at all'), 401, 'invalid_credentials');
    const refused = await signIn(h, email);
    expectNativeError(refused, 429, 'auth_rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
    // The refused attempt opened no session; once the window has moved on, the password signs in again.
    expect(expectNativeOk(await listSessions(access_token)).sessions).toHaveLength(1);
    h.advance(retryAfter * 1000);
    expectNativeOk(await signIn(h, email), 201);
  });

  it('400 invalid_request: no password, a code too short, session_cookie not a boolean', async () => {
    const email = freshEmail('bad');
    for (const body of [
      { email },
      { email, password: PASSWORD, totp: '123' },
      { email, password: 'x', session_cookie: 'yes' },
    ])
      expectNativeError(await h.request('POST', '/v1/auth/sessions', { body }), 400, 'invalid_request');
  });
});

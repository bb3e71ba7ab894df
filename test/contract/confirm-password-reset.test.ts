import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ATTEMPT_LIMITS } from '../../src/domain/accounts/auth-throttle.js';
import {
  type AccountsHarness,
  anotherSession,
  freshEmail,
  PASSWORD,
  signedUpSession,
  signedUpUnconfirmed,
  signIn,
  startAccountsHarness,
  tokenIn,
  totpCode,
  withTotp,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const NEW_PASSWORD = 'a brand new passphrase';

async function resetLink(email: string): Promise<string> {
  expectNativeOk(await h.request('POST', '/v1/auth/password-reset', { body: { email } }), 202);
  return tokenIn(await h.mailTo(email));
}

const confirm = (body: Record<string, unknown>) =>
  h.request('POST', '/v1/auth/password-reset/confirm', { body: { password: NEW_PASSWORD, ...body } });

describe('POST /v1/auth/password-reset/confirm', () => {
  it('200: sets the password and revokes every session', async () => {
    const first = await signedUpSession(h);
    await anotherSession(h, first.email);
    const token = await resetLink(first.email);
    expect(expectNativeOk(await confirm({ token }))).toEqual({ sessions_revoked: 2 });
    expectNativeError(await h.request('GET', '/v1/auth/sessions', { key: first.access_token }), 401, 'invalid_session');
    expectNativeError(await signIn(h, first.email), 401, 'invalid_credentials');
    expectNativeOk(await signIn(h, first.email, NEW_PASSWORD), 201);
  });

  it('200: confirms an address never confirmed (the link proved the mailbox)', async () => {
    const email = freshEmail('unconfirmed');
    await signedUpUnconfirmed(h, email);
    expectNativeOk(await confirm({ token: await resetLink(email) }));
    expectNativeOk(await signIn(h, email, NEW_PASSWORD), 201);
  });

  it('400 invalid_link: a link used a second time', async () => {
    const { email } = await signedUpSession(h);
    const token = await resetLink(email);
    expectNativeOk(await confirm({ token }));
    expectNativeError(await confirm({ token, password: 'yet another passphrase' }), 400, 'invalid_link');
    expectNativeOk(await signIn(h, email, NEW_PASSWORD), 201);
  });

  it('400 invalid_link: a link sent before the password changed, a forged one, one past its hour', async () => {
    const { email, access_token } = await signedUpSession(h);
    const early = await resetLink(email);
    const body = { current_password: PASSWORD, new_password: 'changed in the meantime' };
    expectNativeOk(await h.request('POST', '/v1/account/password', { key: access_token, body }));
    expect((await h.mailTo(email)).subject).toBe('Your password was changed');
    const dead = await confirm({ token: early });
    expectNativeError(dead, 400, 'invalid_link');
    expect(dead.body.data.error).toMatch(/password or the address changed/);
    const late = await resetLink(email);
    expectNativeError(await confirm({ token: `${late}x` }), 400, 'invalid_link');
    h.advance(60 * 60 * 1000 + 1000);
    expectNativeError(await confirm({ token: late }), 400, 'invalid_link');
    expectNativeOk(await signIn(h, email, 'changed in the meantime'), 201);
  });

  it('400 invalid_link: a link sent before the address changed', async () => {
    const { email, access_token } = await signedUpSession(h);
    const early = await resetLink(email);
    const moved = freshEmail('moved');
    const change = { email: moved, password: PASSWORD };
    expectNativeOk(await h.request('POST', '/v1/account/email', { key: access_token, body: change }), 202);
    expectNativeOk(await h.request('POST', '/v1/auth/confirm', { body: { token: tokenIn(await h.mailTo(moved)) } }));
    expectNativeError(await confirm({ token: early }), 400, 'invalid_link');
    expectNativeOk(await signIn(h, moved), 201);
  });

  it('400 weak_password, without using the link up', async () => {
    const { email } = await signedUpSession(h);
    const token = await resetLink(email);
    const weak = await confirm({ token, password: 'too short' });
    expectNativeError(weak, 400, 'weak_password');
    expect(weak.body.data.meta.rule).toBe('too_short');
    expectNativeOk(await confirm({ token }));
  });

  it('401 totp_required and invalid_totp with a second factor, without using the link up; a code works', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { secret, recoveryCodes } = await withTotp(h, access_token);
    const token = await resetLink(email);
    expectNativeError(await confirm({ token }), 401, 'totp_required');
    expectNativeError(await confirm({ token, totp: 'aaaa-bbbb-cccc-dddd' }), 401, 'invalid_totp');
    expectNativeOk(await confirm({ token, totp: totpCode(h, secret) }));
    expectNativeOk(await signIn(h, email, NEW_PASSWORD, { totp: recoveryCodes[0] }), 201);
  });

  it('429 auth_rate_limited with Retry-After past the links one client address may try; the refused one set nothing', async () => {
    const { limit, windowMs } = AUTH_ATTEMPT_LIMITS.linkRedemptionPerAddress;
    const { email } = await signedUpSession(h);
    const token = await resetLink(email);
    const headers = { 'x-forwarded-for': '203.0.113.71' };
    const confirmFrom = (t: string) =>
      h.request('POST', '/v1/auth/password-reset/confirm', { body: { token: t, password: NEW_PASSWORD }, headers });
    for (let i = 0; i < limit; i++) expectNativeError(await confirmFrom(`${token}x`), 400, 'invalid_link');
    const refused = await confirmFrom(token);
    expectNativeError(refused, 429, 'auth_rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
    // The password is still the old one, and the link still works from another client address.
    expectNativeOk(await signIn(h, email), 201);
    expect(expectNativeOk(await confirm({ token }))).toEqual({ sessions_revoked: 2 });
    expectNativeOk(await signIn(h, email, NEW_PASSWORD), 201);
  });

  it('400 invalid_request: no password, no token', async () => {
    expectNativeError(
      await h.request('POST', '/v1/auth/password-reset/confirm', { body: { token: 'x' } }),
      400,
      'invalid_request',
    );
    expectNativeError(await confirm({}), 400, 'invalid_request');
  });
});

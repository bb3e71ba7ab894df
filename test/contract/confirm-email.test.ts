import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_ATTEMPT_LIMITS } from '../../src/domain/accounts/auth-throttle.js';
import {
  type AccountsHarness,
  freshEmail,
  PASSWORD,
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

const confirm = (token: string) => h.request('POST', '/v1/auth/confirm', { body: { token } });

/** The signature part of a token with its first character changed. */
const forged = (token: string) => {
  const [payload, mac] = token.split('.');
  return `${payload}.${mac![0] === 'A' ? 'B' : 'A'}${mac!.slice(1)}`;
};

describe('POST /v1/auth/confirm', () => {
  it('200: the sign-up link confirms the address; the account signs in', async () => {
    const email = freshEmail('confirm');
    const token = await signedUpUnconfirmed(h, email);
    expect(expectNativeOk(await confirm(token))).toEqual({ email, email_confirmed: true });
    expectNativeOk(await signIn(h, email), 201);
  });

  it('200: a link to a new address moves the account there', async () => {
    const { email, access_token } = await signedUpSession(h);
    const newEmail = freshEmail('moved');
    const body = { email: newEmail, password: PASSWORD };
    expectNativeOk(await h.request('POST', '/v1/account/email', { key: access_token, body }), 202);
    const confirmed = await confirm(tokenIn(await h.mailTo(newEmail)));
    expect(expectNativeOk(confirmed)).toEqual({ email: newEmail, email_confirmed: true });
    expectNativeOk(await signIn(h, newEmail), 201);
    expectNativeError(await signIn(h, email), 401, 'invalid_credentials');
  });

  it('400 invalid_link: a link works once', async () => {
    const token = await signedUpUnconfirmed(h);
    expectNativeOk(await confirm(token));
    expectNativeError(await confirm(token), 400, 'invalid_link');
  });

  it('400 invalid_link for the loser of two confirmations racing with one change-of-address link', async () => {
    const { access_token } = await signedUpSession(h);
    const newEmail = freshEmail('raced');
    const body = { email: newEmail, password: PASSWORD };
    expectNativeOk(await h.request('POST', '/v1/account/email', { key: access_token, body }), 202);
    const token = tokenIn(await h.mailTo(newEmail));
    const racers = await Promise.all([confirm(token), confirm(token)]);
    expect(racers.map((r) => r.status).sort()).toEqual([200, 400]);
    expectNativeError(racers.find((r) => r.status === 400)!, 400, 'invalid_link');
  });

  it('400 invalid_link: a sign-up link dies once the account has another address', async () => {
    const email = freshEmail('first');
    const firstLink = await signedUpUnconfirmed(h, email);
    expectNativeOk(await h.request('POST', '/v1/auth/confirm/resend', { body: { email } }), 202);
    expectNativeOk(await confirm(tokenIn(await h.mailTo(email))));
    const { access_token } = expectNativeOk(await signIn(h, email), 201);
    const newEmail = freshEmail('second');
    const body = { email: newEmail, password: PASSWORD };
    expectNativeOk(await h.request('POST', '/v1/account/email', { key: access_token, body }), 202);
    expectNativeOk(await confirm(tokenIn(await h.mailTo(newEmail))));
    const refused = await confirm(firstLink);
    expectNativeError(refused, 400, 'invalid_link');
    expect(refused.body.data.error).toMatch(/another address/);
  });

  it('400 invalid_link: a forged signature, a link of another purpose, not a link at all', async () => {
    const token = await signedUpUnconfirmed(h);
    expectNativeError(await confirm(forged(token)), 400, 'invalid_link');
    expectNativeError(await confirm('nonsense'), 400, 'invalid_link');
    const { email } = await signedUpSession(h);
    expectNativeOk(await h.request('POST', '/v1/auth/password-reset', { body: { email } }), 202);
    const resetLink = await confirm(tokenIn(await h.mailTo(email)));
    expectNativeError(resetLink, 400, 'invalid_link');
    // None of these used the genuine link up.
    expectNativeOk(await confirm(token));
  });

  it('400 invalid_link: a link past its 24 hours', async () => {
    const email = freshEmail('late');
    const token = await signedUpUnconfirmed(h, email);
    h.advance(24 * 60 * 60 * 1000 + 1000);
    const refused = await confirm(token);
    expectNativeError(refused, 400, 'invalid_link');
    expect(refused.body.data.error).toMatch(/expired/);
    expectNativeError(await signIn(h, email), 403, 'email_unconfirmed');
  });

  it('429 auth_rate_limited with Retry-After past the links one client address may try; the refused one is not used', async () => {
    const { limit, windowMs } = AUTH_ATTEMPT_LIMITS.linkRedemptionPerAddress;
    const email = freshEmail('throttled');
    const token = await signedUpUnconfirmed(h, email);
    const headers = { 'x-forwarded-for': '203.0.113.31' };
    const confirmFrom = (t: string) => h.request('POST', '/v1/auth/confirm', { body: { token: t }, headers });
    for (let i = 0; i < limit; i++) expectNativeError(await confirmFrom(forged(token)), 400, 'invalid_link');
    const refused = await confirmFrom(token);
    expectNativeError(refused, 429, 'auth_rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
    // The address is still unconfirmed, and the link still works from another client address.
    expectNativeError(await signIn(h, email), 403, 'email_unconfirmed');
    expect(expectNativeOk(await confirm(token))).toEqual({ email, email_confirmed: true });
    expectNativeOk(await signIn(h, email), 201);
  });

  it('400 invalid_request: no token, an empty one, an unknown field', async () => {
    for (const body of [{}, { token: '' }, { token: 'x', extra: 1 }])
      expectNativeError(await h.request('POST', '/v1/auth/confirm', { body }), 400, 'invalid_request');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountsHarness,
  anotherSession,
  cookieSession,
  PASSWORD,
  signedUpSession,
  signIn,
  startAccountsHarness,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const NEW_PASSWORD = 'a brand new passphrase';
const changePassword = (accessToken: string, current_password: string, new_password = NEW_PASSWORD) =>
  h.request('POST', '/v1/account/password', { key: accessToken, body: { current_password, new_password } });
const list = (accessToken: string) => h.request('GET', '/v1/auth/sessions', { key: accessToken });

describe('POST /v1/account/password', () => {
  it('200: other sessions are revoked, the caller’s stays, API keys keep working; the owner is told', async () => {
    const first = await signedUpSession(h);
    const second = await anotherSession(h, first.email);
    const third = await anotherSession(h, first.email);
    const created = await h.request('POST', '/v1/llm/api-keys', { key: first.access_token, body: { name: 'ci' } });
    const { api_key: apiKey } = expectNativeOk(created, 201);
    expect(expectNativeOk(await changePassword(second.access_token, PASSWORD))).toEqual({ sessions_revoked: 2 });
    expectNativeError(await list(first.access_token), 401, 'invalid_session');
    expectNativeError(await list(third.access_token), 401, 'invalid_session');
    const { sessions } = expectNativeOk(await list(second.access_token));
    expect(sessions.map((s: { id: string }) => s.id)).toEqual([second.session.id]);
    expectNativeOk(await h.request('GET', '/v1/account', { key: apiKey }));
    expect((await h.mailTo(first.email)).subject).toBe('Your password was changed');
  });

  it('200: the old password no longer signs in, the new one does', async () => {
    const { email, access_token } = await signedUpSession(h);
    expectNativeOk(await changePassword(access_token, PASSWORD));
    expectNativeError(await signIn(h, email), 401, 'invalid_credentials');
    expectNativeOk(await signIn(h, email, NEW_PASSWORD), 201);
  });

  it('200 from a refreshed session: it stays, with its refresh token; the others’ refresh tokens are dead', async () => {
    const first = await signedUpSession(h);
    const other = await anotherSession(h, first.email);
    const body = { refresh_token: first.refresh_token };
    const renewed = expectNativeOk(await h.request('POST', '/v1/auth/refresh', { body }));
    expect(expectNativeOk(await changePassword(renewed.access_token, PASSWORD))).toEqual({ sessions_revoked: 1 });
    const refresh = (refresh_token: string) => h.request('POST', '/v1/auth/refresh', { body: { refresh_token } });
    expectNativeError(await refresh(other.refresh_token), 401, 'invalid_session');
    expectNativeOk(await list(renewed.access_token));
    expectNativeOk(await refresh(renewed.refresh_token));
  });

  it('401 invalid_credentials: a wrong current password; nothing changes', async () => {
    const { email, access_token } = await signedUpSession(h);
    expectNativeError(await changePassword(access_token, 'not the passphrase at all'), 401, 'invalid_credentials');
    expectNativeOk(await signIn(h, email), 201);
  });

  it('400 weak_password: the rule in meta.rule; nothing changes', async () => {
    const { email, access_token } = await signedUpSession(h);
    const short = await changePassword(access_token, PASSWORD, 'short');
    expectNativeError(short, 400, 'weak_password');
    expect(short.body.data.meta.rule).toBe('too_short');
    const common = await changePassword(access_token, PASSWORD, 'password1234');
    expectNativeError(common, 400, 'weak_password');
    expect(common.body.data.meta.rule).toBe('too_common');
    expectNativeOk(await signIn(h, email), 201);
  });

  it('403 origin_mismatch: by cookie without the service’s Origin; nothing changes', async () => {
    const { email } = await signedUpSession(h);
    const { session } = await cookieSession(h, email);
    const body = { current_password: PASSWORD, new_password: NEW_PASSWORD };
    const refused = await h.request('POST', '/v1/account/password', { body, headers: { cookie: session } });
    expectNativeError(refused, 403, 'origin_mismatch');
    expectNativeOk(await signIn(h, email), 201);
  });

  it('400 invalid_request: no current password', async () => {
    const { access_token } = await signedUpSession(h);
    const body = { new_password: NEW_PASSWORD };
    expectNativeError(
      await h.request('POST', '/v1/account/password', { key: access_token, body }),
      400,
      'invalid_request',
    );
  });

  it('401 authentication_required without credentials; 403 session_required with an API key', async () => {
    const body = { current_password: PASSWORD, new_password: NEW_PASSWORD };
    expectNativeError(await h.request('POST', '/v1/account/password', { body }), 401, 'authentication_required');
    const { apiKey } = await h.newAccount();
    expectNativeError(await changePassword(apiKey, PASSWORD), 403, 'session_required');
  });
});

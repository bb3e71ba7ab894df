import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountsHarness,
  anotherSession,
  cookieSession,
  setCookies,
  signedUpSession,
  startAccountsHarness,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const revokeAll = (accessToken: string) => h.request('DELETE', '/v1/auth/sessions', { key: accessToken });
const list = (accessToken: string) => h.request('GET', '/v1/auth/sessions', { key: accessToken });

describe('DELETE /v1/auth/sessions', () => {
  it('200: every session of the account ends, the caller’s too; another account’s and API keys go on', async () => {
    const signedIn = await signedUpSession(h);
    // A refreshed session counts once: its predecessor is not a session of its own.
    const refreshBody = { refresh_token: signedIn.refresh_token };
    const renewed = expectNativeOk(await h.request('POST', '/v1/auth/refresh', { body: refreshBody }));
    const first = { ...signedIn, ...renewed };
    const second = await anotherSession(h, first.email);
    const third = await anotherSession(h, first.email);
    const stranger = await signedUpSession(h);
    const created = await h.request('POST', '/v1/llm/api-keys', { key: first.access_token, body: { name: 'ci' } });
    const { api_key: apiKey } = expectNativeOk(created, 201);
    expect(expectNativeOk(await revokeAll(second.access_token))).toEqual({ revoked: 3 });
    for (const session of [first, second, third]) {
      expectNativeError(await list(session.access_token), 401, 'invalid_session');
      const body = { refresh_token: session.refresh_token };
      expectNativeError(await h.request('POST', '/v1/auth/refresh', { body }), 401, 'invalid_session');
    }
    expectNativeOk(await list(stranger.access_token));
    expectNativeOk(await h.request('GET', '/v1/account', { key: apiKey }));
  });

  it('200 by cookie from the service’s own origin, clearing the cookies; 403 origin_mismatch without it', async () => {
    const { email } = await signedUpSession(h);
    const { session } = await cookieSession(h, email);
    const refused = await h.request('DELETE', '/v1/auth/sessions', { headers: { cookie: session } });
    expectNativeError(refused, 403, 'origin_mismatch');
    const response = await h.request('DELETE', '/v1/auth/sessions', {
      headers: { cookie: session, origin: h.baseUrl },
    });
    expect(expectNativeOk(response)).toEqual({ revoked: 2 });
    expect(setCookies(response).cgw_session!.value).toBe('');
  });

  it('401 authentication_required without credentials; 401 invalid_session once signed out', async () => {
    expectNativeError(await h.request('DELETE', '/v1/auth/sessions'), 401, 'authentication_required');
    const { access_token } = await signedUpSession(h);
    expectNativeOk(await revokeAll(access_token));
    expectNativeError(await revokeAll(access_token), 401, 'invalid_session');
  });

  it('403 session_required: an API key', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await revokeAll(apiKey), 403, 'session_required');
  });
});

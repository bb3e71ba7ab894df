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

const revoke = (accessToken: string, id: string) =>
  h.request('DELETE', `/v1/auth/sessions/${id}`, { key: accessToken });
const list = (accessToken: string) => h.request('GET', '/v1/auth/sessions', { key: accessToken });

describe('DELETE /v1/auth/sessions/{session_id}', () => {
  it('200: ends another session of the account; it stops working, the caller’s goes on', async () => {
    const first = await signedUpSession(h);
    const second = await anotherSession(h, first.email);
    const data = expectNativeOk(await revoke(second.access_token, first.session.id));
    expect(data.session).toMatchObject({ id: first.session.id, current: false });
    expectNativeError(await list(first.access_token), 401, 'invalid_session');
    expectNativeError(
      await h.request('POST', '/v1/auth/refresh', { body: { refresh_token: first.refresh_token } }),
      401,
      'invalid_session',
    );
    expectNativeOk(await list(second.access_token));
  });

  it('200: `current` signs the caller out; its access token then answers 401 invalid_session', async () => {
    const signedIn = await signedUpSession(h);
    const data = expectNativeOk(await revoke(signedIn.access_token, 'current'));
    expect(data.session).toMatchObject({ id: signedIn.session.id, current: true });
    expectNativeError(await list(signedIn.access_token), 401, 'invalid_session');
  });

  it('200 by cookie from the service’s own origin, clearing both cookies', async () => {
    const { email } = await signedUpSession(h);
    const { session } = await cookieSession(h, email);
    const response = await h.request('DELETE', '/v1/auth/sessions/current', {
      headers: { cookie: session, origin: h.baseUrl },
    });
    expectNativeOk(response);
    const cleared = setCookies(response);
    expect(cleared.cgw_session!.value).toBe('');
    expect(cleared.cgw_refresh).toMatchObject({ value: '', attributes: { path: '/v1/auth' } });
    expectNativeError(
      await h.request('GET', '/v1/auth/sessions', { headers: { cookie: session } }),
      401,
      'invalid_session',
    );
  });

  it('403 origin_mismatch: a sign-out by cookie without the service’s Origin; the session stands', async () => {
    const { email } = await signedUpSession(h);
    const { session } = await cookieSession(h, email);
    const path = '/v1/auth/sessions/current';
    expectNativeError(await h.request('DELETE', path, { headers: { cookie: session } }), 403, 'origin_mismatch');
    const elsewhere = { cookie: session, origin: 'http://127.0.0.1:1' };
    expectNativeError(await h.request('DELETE', path, { headers: elsewhere }), 403, 'origin_mismatch');
    expectNativeOk(await h.request('GET', '/v1/auth/sessions', { headers: { cookie: session } }));
  });

  it('404 session_not_found: another account’s session, an unknown id, one already ended', async () => {
    const mine = await signedUpSession(h);
    const other = await signedUpSession(h);
    expectNativeError(await revoke(mine.access_token, other.session.id), 404, 'session_not_found');
    expectNativeOk(await list(other.access_token));
    expectNativeError(await revoke(mine.access_token, 'ses_unknown0000'), 404, 'session_not_found');
    const extra = await anotherSession(h, mine.email);
    expectNativeOk(await revoke(mine.access_token, extra.session.id));
    expectNativeError(await revoke(mine.access_token, extra.session.id), 404, 'session_not_found');
  });

  it('400 invalid_request: an id that is neither `current` nor a session id', async () => {
    const { access_token } = await signedUpSession(h);
    expectNativeError(await revoke(access_token, 'key_123'), 400, 'invalid_request');
  });

  it('401 authentication_required without credentials; 403 session_required with an API key', async () => {
    expectNativeError(await h.request('DELETE', '/v1/auth/sessions/current'), 401, 'authentication_required');
    const { apiKey } = await h.newAccount();
    expectNativeError(await revoke(apiKey, 'current'), 403, 'session_required');
  });
});

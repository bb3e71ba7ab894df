import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountsHarness,
  anotherSession,
  cookieSession,
  signedUpSession,
  startAccountsHarness,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const list = (accessToken: string) => h.request('GET', '/v1/auth/sessions', { key: accessToken });

describe('GET /v1/auth/sessions', () => {
  it('200: the account’s live sessions, the caller’s marked current, none of another account', async () => {
    const first = await signedUpSession(h);
    const second = await anotherSession(h, first.email);
    const stranger = await signedUpSession(h);
    const response = await list(second.access_token);
    const { sessions } = expectNativeOk(response);
    expect(sessions.map((s: { id: string }) => s.id).sort()).toEqual([first.session.id, second.session.id].sort());
    expect(sessions.find((s: { current: boolean }) => s.current).id).toBe(second.session.id);
    expect(sessions.some((s: { id: string }) => s.id === stranger.session.id)).toBe(false);
    for (const session of sessions) {
      expect(session.user_agent).toBe('contract-tests/1');
      expect(session.ip).toMatch(/^10\./);
      expect(Date.parse(session.expires_at)).toBeGreaterThan(Date.parse(session.created_at));
    }
    expect(response.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    // From the other session's side, the other one is current.
    const fromFirst = expectNativeOk(await list(first.access_token)).sessions;
    expect(fromFirst.find((s: { current: boolean }) => s.current).id).toBe(first.session.id);
  });

  it('200: a revoked session is no longer listed', async () => {
    const first = await signedUpSession(h);
    const second = await anotherSession(h, first.email);
    expectNativeOk(await h.request('DELETE', `/v1/auth/sessions/${first.session.id}`, { key: second.access_token }));
    const { sessions } = expectNativeOk(await list(second.access_token));
    expect(sessions.map((s: { id: string }) => s.id)).toEqual([second.session.id]);
  });

  it('200: a refreshed session is listed once, as its successor', async () => {
    const signedIn = await signedUpSession(h);
    const body = { refresh_token: signedIn.refresh_token };
    const renewed = expectNativeOk(await h.request('POST', '/v1/auth/refresh', { body }));
    const { sessions } = expectNativeOk(await list(renewed.access_token));
    expect(sessions.map((s: { id: string; current: boolean }) => [s.id, s.current])).toEqual([
      [renewed.session.id, true],
    ]);
  });

  it('200 with the session cookie and no Origin: a read needs none', async () => {
    const { email } = await signedUpSession(h);
    const { session } = await cookieSession(h, email);
    const { sessions } = expectNativeOk(await h.request('GET', '/v1/auth/sessions', { headers: { cookie: session } }));
    expect(sessions.filter((s: { current: boolean }) => s.current)).toHaveLength(1);
  });

  it('401 authentication_required without credentials; 401 invalid_session for an unknown or revoked token', async () => {
    expectNativeError(await h.request('GET', '/v1/auth/sessions'), 401, 'authentication_required');
    expectNativeError(await list(`cgw_at_${'z'.repeat(43)}`), 401, 'invalid_session');
    const signedIn = await signedUpSession(h);
    expectNativeOk(await h.request('DELETE', '/v1/auth/sessions', { key: signedIn.access_token }));
    expectNativeError(await list(signedIn.access_token), 401, 'invalid_session');
  });

  it('403 session_required: an API key', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await list(apiKey), 403, 'session_required');
  });
});

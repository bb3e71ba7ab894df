import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linksIn } from '../../src/lib/links.js';
import {
  type AccountsHarness,
  cookieSession,
  freshEmail,
  PASSWORD,
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

const refresh = (body: unknown, headers: Record<string, string> = {}) =>
  h.request('POST', '/v1/auth/refresh', { body, headers });
const listSessions = (accessToken: string) => h.request('GET', '/v1/auth/sessions', { key: accessToken });

describe('POST /v1/auth/refresh', () => {
  it('200: new tokens; the old access token stops working, the new one works', async () => {
    const signedIn = await signedUpSession(h);
    const data = expectNativeOk(await refresh({ refresh_token: signedIn.refresh_token }));
    expect(data.access_token).toMatch(/^cgw_at_/);
    expect(data.refresh_token).toMatch(/^cgw_rt_/);
    expect(data.access_token).not.toBe(signedIn.access_token);
    expect(data.refresh_token).not.toBe(signedIn.refresh_token);
    expect(data.session.id).not.toBe(signedIn.session.id);
    expect(data.token_type).toBe('Bearer');
    expectNativeOk(await listSessions(data.access_token));
    expectNativeError(await listSessions(signedIn.access_token), 401, 'invalid_session');
    // The successor's refresh token rotates in turn.
    expectNativeOk(await refresh({ refresh_token: data.refresh_token }));
  });

  it('200 once the access token has expired (15 minutes); 401 invalid_session once the refresh token has (30 days)', async () => {
    const signedIn = await signedUpSession(h);
    h.advance(15 * 60 * 1000 + 1000);
    expectNativeError(await listSessions(signedIn.access_token), 401, 'invalid_session');
    const renewed = expectNativeOk(await refresh({ refresh_token: signedIn.refresh_token }));
    expectNativeOk(await listSessions(renewed.access_token));
    h.advance(renewed.refresh_expires_in * 1000 + 1000);
    expectNativeError(await refresh({ refresh_token: renewed.refresh_token }), 401, 'invalid_session');
  });

  it('401 invalid_session: a refresh token presented again revokes the whole sign-in, its newest tokens too', async () => {
    const signedIn = await signedUpSession(h);
    const first = expectNativeOk(await refresh({ refresh_token: signedIn.refresh_token }));
    const second = expectNativeOk(await refresh({ refresh_token: first.refresh_token }));
    expectNativeError(await refresh({ refresh_token: signedIn.refresh_token }), 401, 'invalid_session');
    expectNativeError(await listSessions(second.access_token), 401, 'invalid_session');
    expectNativeError(await refresh({ refresh_token: second.refresh_token }), 401, 'invalid_session');
  });

  it('401 invalid_session: an unknown token, a token of the wrong kind, a revoked session', async () => {
    const signedIn = await signedUpSession(h);
    expectNativeError(await refresh({ refresh_token: `cgw_rt_${'a'.repeat(43)}` }), 401, 'invalid_session');
    expectNativeError(await refresh({ refresh_token: signedIn.access_token }), 401, 'invalid_session');
    expectNativeOk(await h.request('DELETE', '/v1/auth/sessions/current', { key: signedIn.access_token }));
    expectNativeError(await refresh({ refresh_token: signedIn.refresh_token }), 401, 'invalid_session');
  });

  it('401 authentication_required: neither a token in the body nor the refresh cookie', async () => {
    expectNativeError(await refresh(undefined), 401, 'authentication_required');
    expectNativeError(await refresh({}), 401, 'authentication_required');
  });

  it('200 by cookie from the service’s own origin, with new cookies and no tokens in the body', async () => {
    const { email } = await signedUpSession(h);
    const signedIn = await cookieSession(h, email);
    const response = await refresh({ session_cookie: true }, { cookie: signedIn.refresh, origin: h.baseUrl });
    const data = expectNativeOk(response);
    expect(data).not.toHaveProperty('refresh_token');
    const cookies = setCookies(response);
    expect(cookies.cgw_refresh!.attributes.path).toBe('/v1/auth');
    expect(`cgw_refresh=${cookies.cgw_refresh!.value}`).not.toBe(signedIn.refresh);
    const listed = await h.request('GET', '/v1/auth/sessions', {
      headers: { cookie: `cgw_session=${cookies.cgw_session!.value}` },
    });
    expect(expectNativeOk(listed).sessions.some((s: { id: string }) => s.id === data.session.id)).toBe(true);
  });

  it('200 by cookie without session_cookie: still answered in cookies, so page scripts never see the tokens', async () => {
    const { email } = await signedUpSession(h);
    const signedIn = await cookieSession(h, email);
    const response = await refresh(undefined, { cookie: signedIn.refresh, origin: h.baseUrl });
    const data = expectNativeOk(response);
    expect(data).not.toHaveProperty('access_token');
    expect(data).not.toHaveProperty('refresh_token');
    expect(setCookies(response).cgw_refresh!.value).toMatch(/^cgw_rt_/);
  });

  it('403 origin_mismatch: the refresh cookie without an Origin, or from another one; the token stays usable', async () => {
    const { email } = await signedUpSession(h);
    const signedIn = await cookieSession(h, email);
    expectNativeError(await refresh(undefined, { cookie: signedIn.refresh }), 403, 'origin_mismatch');
    const other = { cookie: signedIn.refresh, origin: 'https://evil.example' };
    expectNativeError(await refresh(undefined, other), 403, 'origin_mismatch');
    expectNativeOk(await refresh(undefined, { cookie: signedIn.refresh, origin: h.baseUrl }));
  });

  it('400 invalid_request: an empty token, an unknown field', async () => {
    expectNativeError(await refresh({ refresh_token: '' }), 400, 'invalid_request');
    expectNativeError(await refresh({ refresh_token: 'x', keep: true }), 400, 'invalid_request');
  });
});

describe('POST /v1/auth/refresh from a client address presenting unknown tokens (AUTH_FAILURES_PER_MINUTE=3)', () => {
  let guarded: AccountsHarness;
  beforeAll(async () => {
    guarded = await startAccountsHarness({ AUTH_FAILURES_PER_MINUTE: '3' });
  });
  afterAll(() => guarded.close());

  it('429 auth_rate_limited with Retry-After past the limit, a genuine token too, which is not used; later it works', async () => {
    const signedIn = await signedUpSession(guarded);
    const headers = { 'x-forwarded-for': '203.0.113.51' };
    const refreshFrom = (token: string) =>
      guarded.request('POST', '/v1/auth/refresh', { body: { refresh_token: token }, headers });
    for (const unknown of [`cgw_rt_${'a'.repeat(43)}`, `cgw_rt_${'b'.repeat(43)}`, 'not a refresh token'])
      expectNativeError(await refreshFrom(unknown), 401, 'invalid_session');
    const refused = await refreshFrom(signedIn.refresh_token);
    expectNativeError(refused, 429, 'auth_rate_limited');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // Not rotated: from another client address the token gets its successor, used twice it would revoke the family.
    const renewed = expectNativeOk(
      await guarded.request('POST', '/v1/auth/refresh', { body: { refresh_token: signedIn.refresh_token } }),
    );
    expectNativeOk(await guarded.request('GET', '/v1/auth/sessions', { key: renewed.access_token }));
    // Once the minute has moved on, the client address may refresh again.
    guarded.advance(retryAfter * 1000);
    expectNativeOk(await refreshFrom(renewed.refresh_token));
  });
});

describe('POST /v1/auth/refresh behind PUBLIC_BASE_URL', () => {
  let site: AccountsHarness;
  beforeAll(async () => {
    site = await startAccountsHarness({ PUBLIC_BASE_URL: 'https://dash.example.com/app' });
  });
  afterAll(() => site.close());

  it('403 origin_mismatch from the address the request reached; 200 from PUBLIC_BASE_URL’s origin', async () => {
    const email = freshEmail('site');
    expectNativeOk(await site.request('POST', '/v1/auth/signup', { body: { email, password: PASSWORD } }), 202);
    const link = linksIn((await site.mailTo(email)).text ?? '')[0];
    expect(link).toMatch(/^https:\/\/dash\.example\.com\/app\/confirm\?token=/);
    const token = new URL(link!).searchParams.get('token');
    expectNativeOk(await site.request('POST', '/v1/auth/confirm', { body: { token } }));
    const { refresh } = await cookieSession(site, email);
    const path = '/v1/auth/refresh';
    const direct = await site.request('POST', path, { headers: { cookie: refresh, origin: site.baseUrl } });
    expectNativeError(direct, 403, 'origin_mismatch');
    const fromSite = { cookie: refresh, origin: 'https://dash.example.com' };
    expectNativeOk(await site.request('POST', path, { headers: fromSite }));
  });
});

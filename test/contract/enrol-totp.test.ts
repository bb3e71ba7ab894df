import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountsHarness,
  cookieSession,
  signedUpSession,
  signIn,
  startAccountsHarness,
  withTotp,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const enrol = (accessToken: string) => h.request('POST', '/v1/auth/totp', { key: accessToken });

describe('POST /v1/auth/totp', () => {
  it('201: a base32 secret, its otpauth URI for the account, an enrolment token; nothing changes yet', async () => {
    const { email, access_token } = await signedUpSession(h);
    const data = expectNativeOk(await enrol(access_token), 201);
    expect(data.secret).toMatch(/^[A-Z2-7]{32}$/);
    const uri = new URL(data.otpauth_uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toContain(email);
    expect(uri.searchParams.get('secret')).toBe(data.secret);
    expect(uri.searchParams.get('issuer')).toBe('compute-gateway');
    expect(uri.searchParams.get('digits')).toBe('6');
    expect(uri.searchParams.get('period')).toBe('30');
    expect(typeof data.enrolment_token).toBe('string');
    const minutes = (Date.parse(data.expires_at) - h.deps.now()) / 60_000;
    expect(minutes).toBeGreaterThan(9);
    expect(minutes).toBeLessThanOrEqual(10);
    // Not confirmed: sign-in still needs no code.
    expectNativeOk(await signIn(h, email), 201);
  });

  it('201: a second enrolment draws another secret', async () => {
    const { access_token } = await signedUpSession(h);
    const first = expectNativeOk(await enrol(access_token), 201);
    const second = expectNativeOk(await enrol(access_token), 201);
    expect(second.secret).not.toBe(first.secret);
  });

  it('409 totp_already_enabled once a second factor is on', async () => {
    const { access_token } = await signedUpSession(h);
    await withTotp(h, access_token);
    expectNativeError(await enrol(access_token), 409, 'totp_already_enabled');
  });

  it('403 origin_mismatch: by cookie without the service’s Origin; 201 with it', async () => {
    const { email } = await signedUpSession(h);
    const { session } = await cookieSession(h, email);
    expectNativeError(
      await h.request('POST', '/v1/auth/totp', { headers: { cookie: session } }),
      403,
      'origin_mismatch',
    );
    const ok = await h.request('POST', '/v1/auth/totp', { headers: { cookie: session, origin: h.baseUrl } });
    expectNativeOk(ok, 201);
  });

  it('401 authentication_required without credentials; 403 session_required with an API key', async () => {
    expectNativeError(await h.request('POST', '/v1/auth/totp'), 401, 'authentication_required');
    const { apiKey } = await h.newAccount();
    expectNativeError(await enrol(apiKey), 403, 'session_required');
  });
});

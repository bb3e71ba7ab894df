import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountsHarness,
  PASSWORD,
  signedUpSession,
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

const disable = (accessToken: string, body: unknown) =>
  h.request('DELETE', '/v1/auth/totp', { key: accessToken, body });

describe('DELETE /v1/auth/totp', () => {
  it('200 with the password and a code: sign-in needs no code again, and a new enrolment is possible', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { secret } = await withTotp(h, access_token);
    const data = expectNativeOk(await disable(access_token, { password: PASSWORD, totp: totpCode(h, secret) }));
    expect(data).toEqual({ totp_enabled: false });
    expectNativeOk(await signIn(h, email), 201);
    expectNativeOk(await h.request('POST', '/v1/auth/totp', { key: access_token }), 201);
  });

  it('200 with a recovery code; the recovery codes are gone with the secret', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { recoveryCodes } = await withTotp(h, access_token);
    expectNativeOk(await disable(access_token, { password: PASSWORD, totp: recoveryCodes[0] }));
    const { secret } = await withTotp(h, access_token);
    expectNativeError(await signIn(h, email, PASSWORD, { totp: recoveryCodes[1] }), 401, 'invalid_totp');
    expectNativeOk(await signIn(h, email, PASSWORD, { totp: totpCode(h, secret) }), 201);
  });

  it('401 invalid_credentials: a wrong password; the factor stays on', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { secret } = await withTotp(h, access_token);
    const body = { password: 'not the passphrase at all', totp: totpCode(h, secret) };
    expectNativeError(await disable(access_token, body), 401, 'invalid_credentials');
    expectNativeError(await signIn(h, email), 401, 'totp_required');
  });

  it('401 invalid_totp: a wrong code, or a code already used; the factor stays on', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { secret } = await withTotp(h, access_token);
    expectNativeError(
      await disable(access_token, { password: PASSWORD, totp: '0000-0000-0000-0000' }),
      401,
      'invalid_totp',
    );
    const code = totpCode(h, secret);
    expectNativeOk(await signIn(h, email, PASSWORD, { totp: code }), 201);
    expectNativeError(await disable(access_token, { password: PASSWORD, totp: code }), 401, 'invalid_totp');
    expectNativeError(await signIn(h, email), 401, 'totp_required');
  });

  it('409 totp_not_enabled: an account without a second factor', async () => {
    const { access_token } = await signedUpSession(h);
    expectNativeError(await disable(access_token, { password: PASSWORD, totp: '123456' }), 409, 'totp_not_enabled');
  });

  it('400 invalid_request: no code', async () => {
    const { access_token } = await signedUpSession(h);
    expectNativeError(await disable(access_token, { password: PASSWORD }), 400, 'invalid_request');
  });

  it('401 authentication_required without credentials; 403 session_required with an API key', async () => {
    const body = { password: PASSWORD, totp: '123456' };
    expectNativeError(await h.request('DELETE', '/v1/auth/totp', { body }), 401, 'authentication_required');
    const { apiKey } = await h.newAccount();
    expectNativeError(await disable(apiKey, body), 403, 'session_required');
  });
});

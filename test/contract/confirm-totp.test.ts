import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountsHarness,
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

const enrol = async (accessToken: string) =>
  expectNativeOk(await h.request('POST', '/v1/auth/totp', { key: accessToken }), 201);
const confirm = (accessToken: string, body: unknown) =>
  h.request('POST', '/v1/auth/totp/confirm', { key: accessToken, body });

/** A six-digit code that is not `code`. */
const otherThan = (code: string) => String((Number(code) + 500_000) % 1_000_000).padStart(6, '0');

describe('POST /v1/auth/totp/confirm', () => {
  it('200: a code from the app turns the factor on and answers ten distinct recovery codes', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { secret, enrolment_token } = await enrol(access_token);
    const code = totpCode(h, secret);
    const data = expectNativeOk(await confirm(access_token, { enrolment_token, code }));
    expect(data.totp_enabled).toBe(true);
    expect(data.recovery_codes).toHaveLength(10);
    expect(new Set(data.recovery_codes).size).toBe(10);
    for (const code of data.recovery_codes) expect(code).toMatch(/^[0-9a-z]{4}(-[0-9a-z]{4}){3}$/);
    expectNativeError(await signIn(h, email), 401, 'totp_required');
    // The code that confirmed is spent (RFC 6238 5.2); the app's next one signs in.
    expectNativeError(await signIn(h, email, undefined, { totp: code }), 401, 'invalid_totp');
    expectNativeOk(await signIn(h, email, undefined, { totp: totpCode(h, secret) }), 201);
  });

  it('401 invalid_totp: a wrong code; the enrolment can still be confirmed', async () => {
    const { email, access_token } = await signedUpSession(h);
    const { secret, enrolment_token } = await enrol(access_token);
    const code = totpCode(h, secret);
    expectNativeError(await confirm(access_token, { enrolment_token, code: otherThan(code) }), 401, 'invalid_totp');
    expectNativeOk(await signIn(h, email), 201);
    expectNativeOk(await confirm(access_token, { enrolment_token, code }));
  });

  it('400 invalid_link: another account’s enrolment token, a forged one, one past its 10 minutes', async () => {
    const mine = await signedUpSession(h);
    const theirs = await signedUpSession(h);
    const stolen = await enrol(theirs.access_token);
    const code = totpCode(h, stolen.secret);
    const response = await confirm(mine.access_token, { enrolment_token: stolen.enrolment_token, code });
    expectNativeError(response, 400, 'invalid_link');
    expectNativeOk(await signIn(h, mine.email), 201);
    const own = await enrol(mine.access_token);
    const forged = `${own.enrolment_token.slice(0, -1)}${own.enrolment_token.endsWith('A') ? 'B' : 'A'}`;
    expectNativeError(await confirm(mine.access_token, { enrolment_token: forged, code }), 400, 'invalid_link');
    h.advance(10 * 60 * 1000 + 1000);
    const late = { enrolment_token: own.enrolment_token, code: totpCode(h, own.secret) };
    expectNativeError(await confirm(mine.access_token, late), 400, 'invalid_link');
  });

  it('409 totp_already_enabled: a second enrolment confirmed after the first', async () => {
    const { access_token } = await signedUpSession(h);
    const spare = await enrol(access_token);
    await withTotp(h, access_token);
    const body = { enrolment_token: spare.enrolment_token, code: totpCode(h, spare.secret) };
    expectNativeError(await confirm(access_token, body), 409, 'totp_already_enabled');
  });

  it('400 invalid_request: a code that is not six digits, no enrolment token', async () => {
    const { access_token } = await signedUpSession(h);
    expectNativeError(await confirm(access_token, { enrolment_token: 'x', code: '12345' }), 400, 'invalid_request');
    expectNativeError(await confirm(access_token, { code: '123456' }), 400, 'invalid_request');
  });

  it('401 authentication_required without credentials; 403 session_required with an API key', async () => {
    const body = { enrolment_token: 'x', code: '123456' };
    expectNativeError(await h.request('POST', '/v1/auth/totp/confirm', { body }), 401, 'authentication_required');
    const { apiKey } = await h.newAccount();
    expectNativeError(await confirm(apiKey, body), 403, 'session_required');
  });
});

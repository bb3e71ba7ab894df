import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type AccountsHarness,
  cookieSession,
  PASSWORD,
  setCookies,
  signedUpSession,
  signIn,
  startAccountsHarness,
  totpCode,
  withTotp,
} from '../setup/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { newProvider } from '../setup/market.js';

let h: AccountsHarness;
beforeAll(async () => {
  h = await startAccountsHarness();
});
afterAll(() => h.close());

const deleteAccount = (accessToken: string, body: Record<string, unknown> = { password: PASSWORD }) =>
  h.request('DELETE', '/v1/account', { key: accessToken, body });

/** A signed-in account with one API key. */
async function accountWithKey() {
  const signedIn = await signedUpSession(h);
  const created = await h.request('POST', '/v1/llm/api-keys', { key: signedIn.access_token, body: { name: 'ci' } });
  const { api_key: apiKey } = expectNativeOk(created, 201);
  const { account_id: accountId } = expectNativeOk(await h.request('GET', '/v1/account', { key: apiKey }));
  return { ...signedIn, apiKey: apiKey as string, accountId: accountId as string };
}

describe('DELETE /v1/account', () => {
  it('200: the account is gone: its keys answer 404 user_not_found, its sessions end, its address no longer signs in', async () => {
    const { email, access_token, refresh_token, apiKey } = await accountWithKey();
    expect(expectNativeOk(await deleteAccount(access_token))).toEqual({ deleted: true });
    expectNativeError(await h.request('GET', '/v1/account', { key: apiKey }), 404, 'user_not_found');
    expectNativeError(await h.request('GET', '/v1/auth/sessions', { key: access_token }), 401, 'invalid_session');
    const body = { refresh_token: refresh_token };
    expectNativeError(await h.request('POST', '/v1/auth/refresh', { body }), 401, 'invalid_session');
    expectNativeError(await signIn(h, email), 401, 'invalid_credentials');
  });

  it('409 account_not_empty while the balance is not zero; nothing is deleted', async () => {
    const { access_token, apiKey, accountId } = await accountWithKey();
    await h.topUp(accountId, 2.5);
    const refused = await deleteAccount(access_token);
    expectNativeError(refused, 409, 'account_not_empty');
    expect(refused.body.data.meta).toMatchObject({ balance_usd: 2.5, running_rentals: 0 });
    expectNativeOk(await h.request('GET', '/v1/account', { key: apiKey }));
  });

  it('409 account_not_empty at a zero balance while a rental is wanted running; 200 once it is deleted', async () => {
    const { access_token, apiKey, accountId } = await accountWithKey();
    const provider = await newProvider(h);
    await h.topUp(accountId, 5); // a placement needs the balance to cover the rental for a while
    // Billed by the minute: nothing is held for it, as a term plan's hold would be.
    const body = { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'minute' };
    const rental = expectNativeOk(await h.request('POST', '/v1/instances', { key: apiKey, body }), 201);
    // Its agent has not started it yet: wanted running and never billed while pending, so the sweeper, which stops
    // a running rental the balance no longer covers, leaves it be; then the whole balance is spent on a model call.
    await h.spend(apiKey, 5);
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ availableMicros: 0n, heldMicros: 0n });
    const refused = await deleteAccount(access_token);
    expectNativeError(refused, 409, 'account_not_empty');
    expect(refused.body.data.meta).toEqual(expect.objectContaining({ balance_usd: 0, running_rentals: 1 }));
    expectNativeOk(await h.request('GET', '/v1/account', { key: apiKey }));
    expectNativeOk(await h.request('DELETE', `/v1/instances/${rental.task_id}`, { key: apiKey }));
    expect(expectNativeOk(await deleteAccount(access_token))).toEqual({ deleted: true });
    expectNativeError(await h.request('GET', '/v1/account', { key: apiKey }), 404, 'user_not_found');
  });

  it('401 invalid_credentials: a wrong password; nothing is deleted', async () => {
    const { access_token, apiKey } = await accountWithKey();
    expectNativeError(
      await deleteAccount(access_token, { password: 'not the passphrase at all' }),
      401,
      'invalid_credentials',
    );
    expectNativeOk(await h.request('GET', '/v1/account', { key: apiKey }));
  });

  it('401 totp_required and invalid_totp with a second factor; 200 with its code', async () => {
    const { access_token, apiKey } = await accountWithKey();
    const { secret } = await withTotp(h, access_token);
    expectNativeError(await deleteAccount(access_token), 401, 'totp_required');
    expectNativeError(
      await deleteAccount(access_token, { password: PASSWORD, totp: 'zzzz-zzzz-zzzz-zzzz' }),
      401,
      'invalid_totp',
    );
    expectNativeOk(await h.request('GET', '/v1/account', { key: apiKey }));
    expectNativeOk(await deleteAccount(access_token, { password: PASSWORD, totp: totpCode(h, secret) }));
    expectNativeError(await h.request('GET', '/v1/account', { key: apiKey }), 404, 'user_not_found');
  });

  it('403 origin_mismatch: by cookie without the service’s Origin, while a read with the cookie works', async () => {
    const { email } = await signedUpSession(h);
    const { session } = await cookieSession(h, email);
    const body = { password: PASSWORD };
    const refused = await h.request('DELETE', '/v1/account', { body, headers: { cookie: session } });
    expectNativeError(refused, 403, 'origin_mismatch');
    expectNativeOk(await h.request('GET', '/v1/auth/sessions', { headers: { cookie: session } }));
    const allowed = await h.request('DELETE', '/v1/account', { body, headers: { cookie: session, origin: h.baseUrl } });
    expectNativeOk(allowed);
    expect(setCookies(allowed).cgw_session!.value).toBe('');
  });

  it('400 invalid_request: no password', async () => {
    const { access_token } = await signedUpSession(h);
    expectNativeError(await deleteAccount(access_token, {}), 400, 'invalid_request');
  });

  it('401 authentication_required without credentials; 403 session_required with an API key', async () => {
    const body = { password: PASSWORD };
    expectNativeError(await h.request('DELETE', '/v1/account', { body }), 401, 'authentication_required');
    const { apiKey } = await h.newAccount();
    expectNativeError(await deleteAccount(apiKey), 403, 'session_required');
  });
});

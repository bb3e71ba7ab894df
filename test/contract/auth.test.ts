/**
 * SPEC 5.4 for every operation whose contract requires a key, with both header styles (SPEC 5.1): the four
 * failures, an operator's lock (issue 26 item 8) and a success. Operations are read from the contract, so a new
 * protected operation is covered the day it is added. The lock refuses the account's sessions as it does its keys.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount, lockAccount, revokeKey, unlockAccount } from '../../src/domain/accounts/accounts.js';
import { envelopeForPath } from '../../src/errors/render.js';
import { type AccountsHarness, signedUpSession, signIn, startAccountsHarness } from '../setup/accounts.js';
import { protectedOperations } from '../setup/contract.js';
import { expectCompatError, expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, type JsonResponse, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

function expectError(path: string, response: JsonResponse, status: number, code: string): void {
  if (envelopeForPath(path) === 'compat') expectCompatError(response, status, code);
  else expectNativeError(response, status, code);
}

const operations = protectedOperations();

describe.each(operations)('$method $path', ({ method, path, samplePath }) => {
  it('401 authentication_required with neither header', async () => {
    expectError(path, await call(h.baseUrl, method, samplePath), 401, 'authentication_required');
  });

  describe.each(['bearer', 'x-api-key'] as const)('with %s', (keyHeader) => {
    it('401 invalid_api_key for a malformed key and for an unknown well-formed one', async () => {
      expectError(
        path,
        await call(h.baseUrl, method, samplePath, { key: 'sk-something-else', keyHeader }),
        401,
        'invalid_api_key',
      );
      expectError(
        path,
        await call(h.baseUrl, method, samplePath, { key: `cgw_${'Z'.repeat(40)}`, keyHeader }),
        401,
        'invalid_api_key',
      );
    });

    it('401 api_key_revoked for a revoked key', async () => {
      const { apiKey, keyId } = await h.newAccount();
      await revokeKey(h.deps.apiKeys, null, keyId);
      expectError(path, await call(h.baseUrl, method, samplePath, { key: apiKey, keyHeader }), 401, 'api_key_revoked');
    });

    it('404 user_not_found once the account was hard-deleted', async () => {
      const { apiKey, accountId } = await h.newAccount();
      await deleteAccount(h.deps.apiKeys, accountId);
      expectError(path, await call(h.baseUrl, method, samplePath, { key: apiKey, keyHeader }), 404, 'user_not_found');
    });

    it('403 account_locked while an operator has locked the account (issue 26 item 8)', async () => {
      const { apiKey, accountId } = await h.newAccount();
      await lockAccount(h.deps.apiKeys, accountId, 'contract test');
      expectError(path, await call(h.baseUrl, method, samplePath, { key: apiKey, keyHeader }), 403, 'account_locked');
    });

    it('a valid key gets past authentication', async () => {
      const { apiKey } = await h.newAccount();
      const response = await call(h.baseUrl, method, samplePath, { key: apiKey, keyHeader });
      expect(response.status, response.text).not.toBe(401);
      expect(response.status).toBeLessThan(500);
    });
  });
});

it('covers at least the key-management and compat operations', () => {
  expect(operations.map((o) => o.operationId)).toEqual(
    expect.arrayContaining(['listCompatModels', 'listApiKeys', 'createApiKey', 'revokeApiKey']),
  );
});

describe('a session of an account an operator has locked (issue 26 item 8)', () => {
  let accounts: AccountsHarness;
  beforeAll(async () => {
    accounts = await startAccountsHarness();
  });
  afterAll(() => accounts.close());

  it('403 account_locked for its access token, on the session-only operations and the rest; unlocked, it works', async () => {
    const { email, access_token } = await signedUpSession(accounts);
    const asSession = (path: string) => accounts.request('GET', path, { key: access_token });
    expectNativeOk(await asSession('/v1/auth/sessions'));
    const { account_id: accountId } = expectNativeOk(await asSession('/v1/account'));
    await lockAccount(accounts.deps.apiKeys, accountId, 'contract test');
    for (const path of ['/v1/auth/sessions', '/v1/account', '/v1/llm/api-keys'])
      expectNativeError(await asSession(path), 403, 'account_locked');
    // A new sign-in is refused as well, after the password.
    expectNativeError(await signIn(accounts, email), 403, 'account_locked');
    // The lock did not end the session: it is refused while the lock lasts, no longer.
    await unlockAccount(accounts.deps.apiKeys, accountId);
    expectNativeOk(await asSession('/v1/auth/sessions'));
  });

  it('403 account_locked for its refresh token, which is not spent: unlocked, it refreshes', async () => {
    const { access_token, refresh_token } = await signedUpSession(accounts);
    const { account_id: accountId } = expectNativeOk(
      await accounts.request('GET', '/v1/account', { key: access_token }),
    );
    const refresh = () => accounts.request('POST', '/v1/auth/refresh', { body: { refresh_token } });
    await lockAccount(accounts.deps.apiKeys, accountId, 'contract test');
    expectNativeError(await refresh(), 403, 'account_locked');
    expectNativeError(await refresh(), 403, 'account_locked');
    await unlockAccount(accounts.deps.apiKeys, accountId);
    expectNativeOk(await refresh());
  });
});

describe('a flood of unknown keys from one address (AUTH_FAILURES_PER_MINUTE)', () => {
  const random = () => `cgw_${Math.random().toString(36).slice(2).padEnd(40, 'q').slice(0, 40)}`;

  it('past the limit the address gets 429 auth_rate_limited with Retry-After, in either envelope; a trusted proxy names the address', async () => {
    const guarded = await startHarness({ AUTH_FAILURES_PER_MINUTE: '3', TRUSTED_PROXY: 'loopback' });
    try {
      const from = (address: string, path = '/v1/compat/models') =>
        call(guarded.baseUrl, 'GET', path, { key: random(), headers: { 'x-forwarded-for': address } });
      for (let i = 0; i < 3; i++) expectCompatError(await from('203.0.113.7'), 401, 'invalid_api_key');
      const limited = await from('203.0.113.7');
      expectCompatError(limited, 429, 'auth_rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.headers.get('x-should-retry')).toBe('true');
      expectNativeError(await from('203.0.113.7', '/v1/account'), 429, 'auth_rate_limited');
      // Another client behind the same proxy is not affected.
      expectCompatError(await from('198.51.100.1'), 401, 'invalid_api_key');
    } finally {
      await guarded.close();
    }
  });

  it('unknown session access tokens count too: past the limit that address gets 429, other addresses are served', async () => {
    const guarded = await startAccountsHarness({ AUTH_FAILURES_PER_MINUTE: '3' });
    try {
      const { access_token } = await signedUpSession(guarded);
      const asSession = (key: string, address: string) =>
        guarded.request('GET', '/v1/auth/sessions', { key, headers: { 'x-forwarded-for': address } });
      const unknownToken = () => `cgw_at_${random().slice(4, 47).padEnd(43, 'z')}`;
      for (let i = 0; i < 3; i++)
        expectNativeError(await asSession(unknownToken(), '203.0.113.9'), 401, 'invalid_session');
      const limited = await asSession(unknownToken(), '203.0.113.9');
      expectNativeError(limited, 429, 'auth_rate_limited');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // The address is not looked up at all now, a real token included; a client elsewhere is served.
      expectNativeError(await asSession(access_token, '203.0.113.9'), 429, 'auth_rate_limited');
      expectNativeOk(await asSession(access_token, '198.51.100.2'));
    } finally {
      await guarded.close();
    }
  });

  it('without TRUSTED_PROXY, X-Forwarded-For is not believed: the peer address is the client', async () => {
    const guarded = await startHarness({ AUTH_FAILURES_PER_MINUTE: '2' });
    try {
      for (const address of ['203.0.113.1', '203.0.113.2']) {
        expectCompatError(
          await call(guarded.baseUrl, 'GET', '/v1/compat/models', {
            key: random(),
            headers: { 'x-forwarded-for': address },
          }),
          401,
          'invalid_api_key',
        );
      }
      const limited = await call(guarded.baseUrl, 'GET', '/v1/compat/models', {
        key: random(),
        headers: { 'x-forwarded-for': '203.0.113.3' },
      });
      expectCompatError(limited, 429, 'auth_rate_limited');
    } finally {
      await guarded.close();
    }
  });
});

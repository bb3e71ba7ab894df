import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  // A long cache on purpose: revocation through the API must take effect in this process at once anyway.
  h = await startHarness({ API_KEY_CACHE_TTL_MS: '600000' });
});
afterAll(() => h.close());

const revoke = (key: string, keyId: string) => call(h.baseUrl, 'DELETE', `/v1/llm/api-keys/${keyId}`, { key });

describe('DELETE /v1/llm/api-keys/{key_id}', () => {
  it('200: the key is revoked, answers 401 api_key_revoked at once, other keys keep working', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const other = await issueKey(h.deps.apiKeys, accountId, 'other');
    expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: other.secret })); // now cached
    const data = expectNativeOk(await revoke(apiKey, other.record.id));
    expect(data.key).toMatchObject({ id: other.record.id, status: 'revoked' });
    expect(Date.parse(data.key.revoked_at)).toBeGreaterThan(0);
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: other.secret }), 401, 'api_key_revoked');
    expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: apiKey }));
  });

  it('200 again on a revoked key, keeping the first revocation time', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const other = await issueKey(h.deps.apiKeys, accountId, 'other');
    const first = expectNativeOk(await revoke(apiKey, other.record.id)).key.revoked_at;
    expect(expectNativeOk(await revoke(apiKey, other.record.id)).key.revoked_at).toBe(first);
  });

  it('404 api_key_not_found for another account’s key or an unknown id', async () => {
    const mine = await h.newAccount();
    const theirs = await h.newAccount();
    expectNativeError(await revoke(mine.apiKey, theirs.keyId), 404, 'api_key_not_found');
    expectNativeError(await revoke(mine.apiKey, 'key_doesnotexist'), 404, 'api_key_not_found');
    expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: theirs.apiKey }));
  });

  it('400 invalid_request for an over-long key id', async () => {
    const { apiKey } = await h.newAccount();
    const response = await revoke(apiKey, 'k'.repeat(65));
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0].loc).toEqual(['path', 'key_id']);
  });
});

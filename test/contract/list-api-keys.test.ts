import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ KEY_USAGE_FLUSH_MS: '60000' });
});
afterAll(() => h.close());

describe('GET /v1/llm/api-keys', () => {
  it('200: the caller’s keys only, newest first, never a secret', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount();
    await h.newAccount(); // someone else's key must not show up
    // A second later, so "newest first" is decided by creation time, not by the id tie-break.
    const second = await issueKey(h.deps.apiKeys, accountId, 'second', () => Date.now() + 1000);
    const response = await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: apiKey });
    const { keys } = expectNativeOk(response);
    expect(keys.map((k: { id: string }) => k.id)).toEqual([second.record.id, keyId]);
    expect(keys[0]).toMatchObject({ name: 'second', status: 'active', revoked_at: null });
    expect(response.text).not.toContain(apiKey);
    expect(response.text).not.toContain(second.secret);
    expect(keys[1].display_hint).toBe(`${apiKey.slice(0, 8)}…${apiKey.slice(-4)}`);
  });

  it('records last use in batches, off the request path', async () => {
    const { apiKey } = await h.newAccount();
    await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: apiKey });
    await h.deps.keyUsage.flush();
    const { keys } = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: apiKey }));
    expect(Date.parse(keys[0].last_used_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/llm/api-keys'), 401, 'authentication_required');
  });
});

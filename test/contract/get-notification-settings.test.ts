import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const get = (key?: string) => call(h.baseUrl, 'GET', '/v1/settings/notifications', key === undefined ? {} : { key });

describe('GET /v1/settings/notifications', () => {
  it('200: an account that set nothing has no chat linked and rental alerts on', async () => {
    const { apiKey } = await h.newAccount();
    const response = await get(apiKey);
    expect(expectNativeOk(response)).toEqual({ messenger_chat_id: null, rentals: true });
    expect(response.headers.get('x-ratelimit-remaining')).toBe('119');
  });

  it('200: the chat and switch last saved, for this account only', async () => {
    const linked = await h.newAccount();
    const other = await h.newAccount();
    expectNativeOk(
      await call(h.baseUrl, 'PUT', '/v1/settings/notifications', {
        key: linked.apiKey,
        body: { messenger_chat_id: '-1001234567890', rentals: false },
      }),
    );
    expect(expectNativeOk(await get(linked.apiKey))).toEqual({ messenger_chat_id: '-1001234567890', rentals: false });
    expect(expectNativeOk(await get(other.apiKey))).toEqual({ messenger_chat_id: null, rentals: true });
  });

  it('400 invalid_request for a query parameter the operation does not take', async () => {
    const { apiKey } = await h.newAccount();
    const response = await call(h.baseUrl, 'GET', '/v1/settings/notifications?rentals=true', { key: apiKey });
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0].loc).toEqual(['query', 'rentals']);
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await get(), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await get(apiKey), 404, 'user_not_found');
  });

  it('503 not_ready when the settings store cannot be read, retryable', async () => {
    const { apiKey } = await h.newAccount();
    const original = h.deps.alerts.getTarget;
    h.deps.alerts.getTarget = () => Promise.reject(new Error('database down'));
    try {
      const response = await get(apiKey);
      expectNativeError(response, 503, 'not_ready');
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      h.deps.alerts.getTarget = original;
    }
  });
});

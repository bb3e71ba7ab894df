import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ BODY_LIMIT_BYTES: '2048' });
});
afterAll(() => h.close());

const put = (key: string | undefined, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'PUT', '/v1/settings/notifications', { ...(key === undefined ? {} : { key }), ...options });
const saved = async (key: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', '/v1/settings/notifications', { key }));

describe('PUT /v1/settings/notifications', () => {
  it('200: links a chat, echoes what was saved, and the target is stored for the dispatcher', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const response = await put(apiKey, { body: { messenger_chat_id: '123456789', rentals: true } });
    expect(expectNativeOk(response)).toEqual({ messenger_chat_id: '123456789', rentals: true });
    expect(response.body.message).toBe('Настройка сохранена');
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
    expect(await saved(apiKey)).toEqual({ messenger_chat_id: '123456789', rentals: true });
    expect(await h.deps.alerts.getTarget(accountId)).toMatchObject({
      accountId,
      messengerChatId: '123456789',
      rentalsEnabled: true,
    });
  });

  it('200: a group id, a public channel, rental alerts off, and null unlinking; idempotent', async () => {
    const { apiKey } = await h.newAccount();
    expect(expectNativeOk(await put(apiKey, { body: { messenger_chat_id: '-1001234567890', rentals: true } }))).toEqual(
      { messenger_chat_id: '-1001234567890', rentals: true },
    );
    expect(expectNativeOk(await put(apiKey, { body: { messenger_chat_id: '@gpu_alerts', rentals: false } }))).toEqual({
      messenger_chat_id: '@gpu_alerts',
      rentals: false,
    });
    expect(expectNativeOk(await put(apiKey, { body: { messenger_chat_id: null, rentals: false } }))).toEqual({
      messenger_chat_id: null,
      rentals: false,
    });
    expect(expectNativeOk(await put(apiKey, { body: { messenger_chat_id: null, rentals: false } }))).toEqual({
      messenger_chat_id: null,
      rentals: false,
    });
    expect(await saved(apiKey)).toEqual({ messenger_chat_id: null, rentals: false });
  });

  it('400 invalid_request with meta.fields: a field missing, a chat id that is no chat id, a wrong type, an unknown field; nothing saved', async () => {
    const { apiKey } = await h.newAccount();
    const missing = await put(apiKey, { body: { messenger_chat_id: '42' } });
    expectNativeError(missing, 400, 'invalid_request');
    expect(missing.body.data.meta.fields[0]).toMatchObject({ type: 'required', loc: ['body', 'rentals'] });

    for (const chatId of ['abc', '0', '12 34', '@ab', '', 42]) {
      const bad = await put(apiKey, { body: { messenger_chat_id: chatId, rentals: true } });
      expectNativeError(bad, 400, 'invalid_request');
      expect(bad.body.data.meta.fields[0].loc).toEqual(['body', 'messenger_chat_id']);
    }

    const yes = await put(apiKey, { body: { messenger_chat_id: '42', rentals: 'yes' } });
    expectNativeError(yes, 400, 'invalid_request');
    expect(yes.body.data.meta.fields[0]).toMatchObject({ type: 'type', loc: ['body', 'rentals'] });

    const extra = await put(apiKey, { body: { messenger_chat_id: '42', rentals: true, email: true } });
    expectNativeError(extra, 400, 'invalid_request');
    expect(extra.body.data.meta.fields[0].type).toBe('additionalProperties');

    expectNativeError(
      await put(apiKey, { rawBody: '{"rentals": ', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    );
    expect(await saved(apiKey)).toEqual({ messenger_chat_id: null, rentals: true });
  });

  it('401 authentication_required without a key, before the body is looked at', async () => {
    expectNativeError(await put(undefined, { body: { messenger_chat_id: 'nope' } }), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await put(apiKey, { body: { messenger_chat_id: '42', rentals: true } }), 404, 'user_not_found');
  });

  it('413 request_too_large over the body cap', async () => {
    const { apiKey } = await h.newAccount();
    const rawBody = `{"messenger_chat_id": "42", "rentals": true, "pad": "${'x'.repeat(20_000)}"}`;
    expectNativeError(
      await put(apiKey, { rawBody, headers: { 'content-type': 'application/json' } }),
      413,
      'request_too_large',
    );
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(
      await put(apiKey, { rawBody: 'messenger_chat_id=42', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });

  it('503 not_ready when the settings store cannot be written, retryable; nothing saved', async () => {
    const { apiKey } = await h.newAccount();
    const original = h.deps.alerts.putTarget;
    h.deps.alerts.putTarget = () => Promise.reject(new Error('database down'));
    try {
      const response = await put(apiKey, { body: { messenger_chat_id: '42', rentals: true } });
      expectNativeError(response, 503, 'not_ready');
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      h.deps.alerts.putTarget = original;
    }
    expect(await saved(apiKey)).toEqual({ messenger_chat_id: null, rentals: true });
  });
});

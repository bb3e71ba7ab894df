/** POST /v1/llm/chats (SPEC 4.2; the shape is ours): a new, empty chat of the caller. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('POST /v1/llm/chats', () => {
  it('201 with the chat: its id, the title given or a default one, when it was made; it reads back empty', async () => {
    const { apiKey } = await h.newAccount();
    const named = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/chats', { key: apiKey, body: { title: 'Logo ideas' } }),
      201,
    );
    expect(named).toEqual({
      chat_id: expect.stringMatching(/^chat_/),
      title: 'Logo ideas',
      created_at: expect.any(Number),
    });
    expect(expectNativeOk(await call(h.baseUrl, 'POST', '/v1/llm/chats', { key: apiKey }), 201).title).toBe('New chat');
    expect(expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${named.chat_id}`, { key: apiKey }))).toEqual({
      ...named,
      dialogues: [],
    });
  });

  it('400 for an empty title; 401 without a key', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/llm/chats', { key: apiKey, body: { title: '' } }),
      400,
      'invalid_request',
    );
    expectNativeError(await call(h.baseUrl, 'POST', '/v1/llm/chats', { body: {} }), 401, 'authentication_required');
  });
});

/** GET /v1/llm/chats/{chat_id}: a chat of the caller with its history; anybody else's is 404 chat_not_found. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/llm/chats/{chat_id}', () => {
  it('answers the chat and its dialogues in order; 404 chat_not_found for another account’s or an unknown chat', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 1 });
    const stranger = await h.newAccount();
    const chat = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/chats', { key: owner.apiKey, body: { title: 'Notes' } }),
      201,
    );
    expectNativeOk(
      await call(h.baseUrl, 'POST', `/v1/llm/chats/${chat.chat_id}/messages`, {
        key: owner.apiKey,
        body: { model: 'gpt-5-mini', content: 'Remember 42.' },
      }),
    );
    const read = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${chat.chat_id}`, { key: owner.apiKey }));
    expect(read).toMatchObject({ chat_id: chat.chat_id, title: 'Notes' });
    expect(read.dialogues[0]).toEqual({
      dialogue_id: expect.any(String),
      role: 'user',
      type: 'text',
      content: 'Remember 42.',
      model: 'gpt-5-mini',
      job_id: null,
      image: null,
      created_at: expect.any(Number),
    });
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/llm/chats/${chat.chat_id}`, { key: stranger.apiKey }),
      404,
      'chat_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/llm/chats/${newId('chat')}`, { key: owner.apiKey }),
      404,
      'chat_not_found',
    );
    expectNativeError(await call(h.baseUrl, 'GET', `/v1/llm/chats/${chat.chat_id}`), 401, 'authentication_required');
  });
});

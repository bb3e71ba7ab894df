/**
 * POST /v1/llm/chats/{chat_id}/messages (SPEC 4.2): a text model answers now, over the chat's text history, charged
 * as a chat completion; an image model answers at once with `image_pending`, its job and a placeholder in the
 * history, the estimate held.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { micros } from '../setup/money.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const newChat = async (key: string) =>
  expectNativeOk(await call(h.baseUrl, 'POST', '/v1/llm/chats', { key }), 201).chat_id as string;
const say = (key: string, chatId: string, body: Record<string, unknown>) =>
  call(h.baseUrl, 'POST', `/v1/llm/chats/${chatId}/messages`, { key, body });

describe('POST /v1/llm/chats/{chat_id}/messages', () => {
  it('a text model replies now; both turns join the history; the reply is charged what it says', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const chatId = await newChat(apiKey);
    const first = expectNativeOk(await say(apiKey, chatId, { model: 'gpt-5-mini', content: 'Name a colour.' }));
    expect(first).toEqual({
      chat_id: chatId,
      type: 'text',
      dialogue_id: expect.stringMatching(/^dlg_/),
      content: expect.any(String),
      model: 'gpt-5-mini',
      cost_usd: expect.any(Number),
    });
    expect(first.content.length).toBeGreaterThan(0);
    const second = expectNativeOk(await say(apiKey, chatId, { model: 'gpt-5-mini', content: 'Another one.' }));
    const { dialogues } = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${chatId}`, { key: apiKey }));
    expect(dialogues.map((d: { role: string; type: string; content: string }) => [d.role, d.type, d.content])).toEqual([
      ['user', 'text', 'Name a colour.'],
      ['assistant', 'text', first.content],
      ['user', 'text', 'Another one.'],
      ['assistant', 'text', second.content],
    ]);
    await h.deps.billing.settled(accountId);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(first.cost_usd) + micros(second.cost_usd));
  });

  it('an image model answers at once with image_pending, the job and a placeholder in the history, the estimate held', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const chatId = await newChat(apiKey);
    const started = Date.now();
    const reply = expectNativeOk(await say(apiKey, chatId, { model: 'imgG-4o', content: 'A lighthouse at dawn' }));
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(reply).toEqual({
      chat_id: chatId,
      type: 'image_pending',
      dialogue_id: expect.stringMatching(/^dlg_/),
      job_id: expect.stringMatching(/^job_/),
      model: 'imgG-4o',
      estimated_cost_usd: expect.any(Number),
    });
    const { dialogues } = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${chatId}`, { key: apiKey }));
    expect(dialogues[1]).toMatchObject({
      dialogue_id: reply.dialogue_id,
      role: 'assistant',
      type: expect.stringMatching(/^image/),
      job_id: reply.job_id,
      model: 'imgG-4o',
    });
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const chatId = await newChat(apiKey);
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', `/v1/llm/chats/${chatId}/messages`, {
        key: apiKey,
        body,
        headers: { 'Idempotency-Key': key },
      });
    const firstAnswer = await expectIdempotencyContract(
      send,
      {
        first: { model: 'gpt-5-mini', content: 'Name a colour.' },
        other: { model: 'gpt-5-mini', content: 'Another one.' },
      },
      'native',
      200,
    );
    // Answered once: one turn in the history, charged once.
    const reply = expectNativeOk(firstAnswer);
    const { dialogues } = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${chatId}`, { key: apiKey }));
    expect(dialogues.map((d: { role: string; content: string }) => [d.role, d.content])).toEqual([
      ['user', 'Name a colour.'],
      ['assistant', reply.content],
    ]);
    await h.deps.billing.settled(accountId);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(reply.cost_usd));
  });

  it('the same Idempotency-Key and body on another chat is another request: 409, not the first chat’s answer', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const [a, b] = [await newChat(apiKey), await newChat(apiKey)];
    const body = { model: 'gpt-5-mini', content: 'Name a colour.' };
    const headers = { 'Idempotency-Key': 'one-key-two-chats' };
    expectNativeOk(await call(h.baseUrl, 'POST', `/v1/llm/chats/${a}/messages`, { key: apiKey, body, headers }));
    expectNativeError(
      await call(h.baseUrl, 'POST', `/v1/llm/chats/${b}/messages`, { key: apiKey, body, headers }),
      409,
      'idempotency_conflict',
    );
    expect(expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${b}`, { key: apiKey })).dialogues).toEqual([]);
  });

  it('404 chat_not_found for another account’s or an unknown chat; 402 when the message cannot be paid; 400 for a model of neither kind', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 1 });
    const broke = await h.newAccount();
    const chatId = await newChat(owner.apiKey);
    expectNativeError(await say(broke.apiKey, chatId, { model: 'gpt-5-mini', content: 'hi' }), 404, 'chat_not_found');
    expectNativeError(
      await say(owner.apiKey, newId('chat'), { model: 'gpt-5-mini', content: 'hi' }),
      404,
      'chat_not_found',
    );
    const brokeChat = await newChat(broke.apiKey);
    expectNativeError(
      await say(broke.apiKey, brokeChat, { model: 'imgG-4o', content: 'x' }),
      402,
      'insufficient_balance',
    );
    expectNativeError(
      await say(broke.apiKey, brokeChat, { model: 'gpt-5-mini', content: 'x' }),
      402,
      'insufficient_balance',
    );
    expectNativeError(
      await say(owner.apiKey, chatId, { model: 'text-embedding-3-small', content: 'x' }),
      400,
      'model_is_retrieval',
    );
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${brokeChat}`, { key: broke.apiKey })).dialogues,
    ).toEqual([]);
  });
});

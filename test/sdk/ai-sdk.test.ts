/**
 * The Vercel AI SDK (`ai` 6 with `@ai-sdk/openai` 3, `@ai-sdk/openai-compatible` 2 and `@ai-sdk/cohere` 3, the
 * last releases that run on Node 20) against a live gateway serving the embedded sandbox: what a user who points
 * the AI SDK at `/v1/compat` gets. The sandbox never calls tools: tool round trips are in
 * test/integration/responses-tools.test.ts, against a fake upstream that calls them.
 */
import { createCohere } from '@ai-sdk/cohere';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { APICallError, embedMany, generateText, rerank, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
let apiKey: string;

beforeAll(async () => {
  h = await startHarness();
  ({ apiKey } = await h.newAccount(undefined, { balanceUsd: 100 }));
});
afterAll(() => h.close());

const CHAT_MODEL = 'gpt-5-mini';
const compat = (key = apiKey) =>
  createOpenAICompatible({ name: 'gateway', baseURL: `${h.baseUrl}/v1/compat`, apiKey: key, includeUsage: true });
const openai = (key = apiKey) => createOpenAI({ baseURL: `${h.baseUrl}/v1/compat`, apiKey: key });

/** The APICallError a call rejects with (the AI SDK's error class for an HTTP failure). */
async function apiCallError(call: () => Promise<unknown>): Promise<APICallError> {
  try {
    await call();
  } catch (err) {
    expect(APICallError.isInstance(err), String(err)).toBe(true);
    return err as APICallError;
  }
  throw new Error('expected the call to fail');
}

describe('AI SDK: chat completions', () => {
  it('generateText through @ai-sdk/openai-compatible: text and usage', async () => {
    const result = await generateText({
      model: compat().chatModel(CHAT_MODEL),
      prompt: 'Say hello.',
      maxOutputTokens: 32,
      maxRetries: 0,
    });
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    expect(result.usage.outputTokens).toBeGreaterThan(0);
    expect(['stop', 'length']).toContain(result.finishReason);
  });

  it('streamText through @ai-sdk/openai (chat model): the deltas join to the text, usage at the end', async () => {
    const result = streamText({
      model: openai().chat(CHAT_MODEL),
      prompt: 'Tell me about gateways.',
      maxOutputTokens: 48,
      maxRetries: 0,
    });
    let joined = '';
    for await (const delta of result.textStream) joined += delta;
    expect(joined.length).toBeGreaterThan(0);
    expect(joined).toBe(await result.text);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('streamText through the default openai(id) model (Responses API, streamed): deltas, finish reason, usage', async () => {
    const result = streamText({
      model: openai()(CHAT_MODEL),
      prompt: 'Tell me about gateways.',
      maxOutputTokens: 48,
      maxRetries: 0,
    });
    let joined = '';
    for await (const delta of result.textStream) joined += delta;
    expect(joined).toMatch(/^Sandbox reply \(gpt-5-mini\): \S/);
    expect(['stop', 'length']).toContain(await result.finishReason);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('embedMany through @ai-sdk/openai: one vector per value, at the asked dimensions', async () => {
    const { embeddings, usage } = await embedMany({
      model: openai().embedding('text-embedding-3-small'),
      values: ['first text', 'second text'],
      providerOptions: { openai: { dimensions: 256 } },
      maxRetries: 0,
    });
    expect(embeddings).toHaveLength(2);
    for (const vector of embeddings) expect(vector).toHaveLength(256);
    expect(usage.tokens).toBeGreaterThan(0);
  });
});

describe('AI SDK: errors arrive as APICallError with the status and retryability', () => {
  it('401 for an unknown key, not retryable', async () => {
    const err = await apiCallError(() =>
      generateText({ model: compat('cgw_not_a_real_key').chatModel(CHAT_MODEL), prompt: 'hi', maxRetries: 0 }),
    );
    expect(err.statusCode).toBe(401);
    expect(err.isRetryable).toBe(false);
  });

  it('402 for a zero balance, not retryable', async () => {
    const broke = await h.newAccount();
    const err = await apiCallError(() =>
      generateText({ model: compat(broke.apiKey).chatModel(CHAT_MODEL), prompt: 'hi', maxRetries: 0 }),
    );
    expect(err.statusCode).toBe(402);
    expect(err.isRetryable).toBe(false);
    expect(err.responseBody).toContain('insufficient_balance');
  });

  it('429 past the key’s limit, retryable', async () => {
    const limited = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.deps.apiKeys.setKeyRateLimit(limited.keyId, 1);
    h.deps.authenticator.invalidate({ keyId: limited.keyId });
    await generateText({
      model: compat(limited.apiKey).chatModel(CHAT_MODEL),
      prompt: 'hi',
      maxOutputTokens: 8,
      maxRetries: 0,
    });
    const err = await apiCallError(() =>
      generateText({ model: compat(limited.apiKey).chatModel(CHAT_MODEL), prompt: 'hi', maxRetries: 0 }),
    );
    expect(err.statusCode).toBe(429);
    expect(err.isRetryable).toBe(true);
  });

  it('context overflow: 400 whose message says "maximum context length"', async () => {
    const err = await apiCallError(() =>
      generateText({ model: compat().chatModel('gemma-2-9b-it'), prompt: 'lorem ipsum '.repeat(6000), maxRetries: 0 }),
    );
    expect(err.statusCode).toBe(400);
    expect(err.message).toContain('maximum context length');
  });
});

describe('AI SDK: @ai-sdk/cohere rerank()', () => {
  it('ranks documents, best first, with the top N asked for', async () => {
    const documents = ['Paris is the capital of France.', 'Bananas are yellow.', 'The Eiffel Tower is in Paris.'];
    const cohere = createCohere({ baseURL: `${h.baseUrl}/v1/compat`, apiKey });
    const result = await rerank({
      model: cohere.reranking('bge-reranker-v2-m3'),
      query: 'What is in Paris?',
      documents,
      topN: 2,
      maxRetries: 0,
    });
    expect(result.ranking).toHaveLength(2);
    expect(result.ranking.map((r) => r.originalIndex).sort()).toEqual([0, 2]);
    expect(result.ranking[0]!.score).toBeGreaterThanOrEqual(result.ranking[1]!.score);
    expect(result.rerankedDocuments[0]).toBe(documents[result.ranking[0]!.originalIndex]);
    expect(result.response.id).toMatch(/^req_/);
  });
});

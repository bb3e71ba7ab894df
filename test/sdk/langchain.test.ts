/**
 * LangChain JS (`@langchain/openai` 1.5.8 with `@langchain/core` 1.4, the last `@langchain/openai` on Node 20)
 * against a live gateway at `/v1/compat`: ChatOpenAI over chat completions (its default) and over the Responses
 * API, invoke and stream, a tool round trip, OpenAIEmbeddings, and the errors LangChain turns into its own:
 * MODEL_AUTHENTICATION, MODEL_RATE_LIMIT and ContextOverflowError (what lets it trim history). Text comes from
 * the embedded sandbox; tool calls from a local fake OpenAI-style upstream routed for one model.
 */
import { ContextOverflowError } from '@langchain/core/errors';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI, OpenAIEmbeddings } from '@langchain/openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FakeBehaviour, type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { type Harness, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const TEXT_MODEL = 'gpt-5-mini';
/** Routed to the fake, which calls the tool when asked to. */
const TOOL_MODEL = 'gpt-4o-mini';
const TOOL_CALL: FakeBehaviour = {
  reply: { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
};

let fake: FakeUpstream;
let behaviour: FakeBehaviour = 'ok';
let h: Harness;
let apiKey: string;

beforeAll(async () => {
  fake = await startFakeUpstream({ behaviour: () => behaviour });
  const upstreams = writeUpstreamsFile(
    { [TOOL_MODEL]: [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 0.3 } }] },
    { sandboxDefault: true },
  );
  h = await startHarness({ UPSTREAMS_FILE: upstreams });
  ({ apiKey } = await h.newAccount(undefined, { balanceUsd: 100 }));
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  removeUpstreamsFiles();
});

/** Each call the client made: its path and whether it asked for a stream (so a test proves which API it used). */
let calls: string[] = [];
const recordingFetch: typeof fetch = async (input, init) => {
  const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
  calls.push(
    `${new URL(String(input instanceof Request ? input.url : input)).pathname}${body.stream === true ? ' stream' : ''}`,
  );
  return fetch(input, init);
};

const chatModel = (model: string, options: { key?: string; useResponsesApi?: boolean } = {}) =>
  new ChatOpenAI({
    model,
    apiKey: options.key ?? apiKey,
    configuration: { baseURL: `${h.baseUrl}/v1/compat`, fetch: recordingFetch },
    maxRetries: 0,
    useResponsesApi: options.useResponsesApi ?? false,
  });

const weather = tool(async ({ city }) => `${city}: -3 °C`, {
  name: 'get_weather',
  description: 'Weather in a city',
  schema: z.object({ city: z.string() }),
});

/** What a call rejects with. */
async function failure(call: () => Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    await call();
  } catch (err) {
    return err as Error & Record<string, unknown>;
  }
  throw new Error('expected the call to fail');
}

describe.each([
  ['chat completions', false, '/v1/compat/chat/completions'],
  ['the Responses API', true, '/v1/compat/responses'],
])('ChatOpenAI over %s', (_name, useResponsesApi, path) => {
  beforeEach(() => void (calls = []));

  it('invoke: text and usage metadata', async () => {
    const reply = await chatModel(TEXT_MODEL, { useResponsesApi }).invoke('Say hello.');
    expect(calls).toEqual([path]);
    expect(reply.text).toMatch(/^Sandbox reply \(gpt-5-mini\): \S/);
    expect(reply.usage_metadata?.output_tokens).toBeGreaterThan(0);
  });

  it('stream: the chunks join to the text, usage at the end', async () => {
    let joined = '';
    let outputTokens = 0;
    for await (const chunk of await chatModel(TEXT_MODEL, { useResponsesApi }).stream('Tell me about gateways.')) {
      joined += chunk.text;
      outputTokens += chunk.usage_metadata?.output_tokens ?? 0;
    }
    expect(joined).toMatch(/^Sandbox reply \(gpt-5-mini\): \S/);
    expect(outputTokens).toBeGreaterThan(0);
    expect(calls).toEqual([`${path} stream`]);
  });

  it('a tool round trip: the call, then the answer after the tool message', async () => {
    const model = chatModel(TOOL_MODEL, { useResponsesApi }).bindTools([weather]);
    behaviour = TOOL_CALL;
    const history: BaseMessage[] = [new HumanMessage('Weather in Oslo?')];
    const call = await model.invoke(history);
    expect(call.tool_calls).toMatchObject([{ name: 'get_weather', args: { city: 'Oslo' }, id: 'call_w1' }]);
    history.push(call, new ToolMessage({ tool_call_id: 'call_w1', content: await weather.invoke({ city: 'Oslo' }) }));
    behaviour = 'ok';
    const answer = await model.invoke(history);
    expect(answer).toBeInstanceOf(AIMessage);
    expect(answer.text).toBe('chunk1 chunk2 chunk3 ');
    expect((fake.requests.at(-1)!.body as Record<string, any>).messages).toContainEqual({
      role: 'tool',
      tool_call_id: 'call_w1',
      content: 'Oslo: -3 °C',
    });
  });
});

describe('OpenAIEmbeddings', () => {
  it('embedDocuments and embedQuery: one vector per text, at the asked dimensions', async () => {
    const embeddings = new OpenAIEmbeddings({
      model: 'text-embedding-3-small',
      dimensions: 256,
      apiKey,
      configuration: { baseURL: `${h.baseUrl}/v1/compat` },
      maxRetries: 0,
    });
    const vectors = await embeddings.embedDocuments(['first text', 'second text']);
    expect(vectors).toHaveLength(2);
    for (const vector of vectors) expect(vector).toHaveLength(256);
    expect(await embeddings.embedQuery('first text')).toEqual(vectors[0]);
  });
});

describe('LangChain errors', () => {
  it('401 → lc_error_code MODEL_AUTHENTICATION, not retryable', async () => {
    const err = await failure(() => chatModel(TEXT_MODEL, { key: 'cgw_not_a_real_key' }).invoke('hi'));
    expect(err.lc_error_code).toBe('MODEL_AUTHENTICATION');
    expect(err.status).toBe(401);
  });

  it('402 → the API error with status 402 and code insufficient_balance', async () => {
    const broke = await h.newAccount();
    const err = await failure(() => chatModel(TEXT_MODEL, { key: broke.apiKey }).invoke('hi'));
    expect(err).toMatchObject({ status: 402, code: 'insufficient_balance' });
  });

  it('429 → lc_error_code MODEL_RATE_LIMIT', async () => {
    const limited = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.deps.apiKeys.setKeyRateLimit(limited.keyId, 1);
    h.deps.authenticator.invalidate({ keyId: limited.keyId });
    await chatModel(TEXT_MODEL, { key: limited.apiKey }).invoke('hi');
    const err = await failure(() => chatModel(TEXT_MODEL, { key: limited.apiKey }).invoke('hi'));
    expect(err.lc_error_code).toBe('MODEL_RATE_LIMIT');
    expect(err.status).toBe(429);
  });

  it.each([false, true])('context overflow → ContextOverflowError (Responses API: %s)', async (useResponsesApi) => {
    const err = await failure(() =>
      chatModel('gemma-2-9b-it', { useResponsesApi }).invoke('lorem ipsum '.repeat(6000)),
    );
    expect(err).toBeInstanceOf(ContextOverflowError);
    expect(err.message).toContain('maximum context length');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ChatStream,
  type StreamEvent,
  UpstreamError,
  type UpstreamProvider,
} from '../../src/adapters/upstream/index.js';
import { countTokens, estimatePromptTokens } from '../../src/domain/text/token-counting.js';
import { expectCompatError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { jsonFrames, postSse } from '../setup/sse.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ BODY_LIMIT_BYTES: String(256 * 1024) });
});
afterAll(() => h.close());

const PATH = '/v1/compat/chat/completions';
const MODEL = 'gpt-5-mini';
const hello = [{ role: 'user', content: 'Say hello' }];
const user = (content: unknown) => [{ role: 'user', content }];
/** An image inline: links are loaded before the hold, and this harness's loader reaches no network. */
const ONE_PIXEL_PNG =
  'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

const chat = (key: string | undefined, body: unknown, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'POST', PATH, { ...(key === undefined ? {} : { key }), body, ...options });

const micros = (usd: number) => BigInt(Math.round(usd * 1e6));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a text call costs at the row's retail rates (SPEC 2.5, 2.6): micro-USD, half-up once. */
function retailMicros(slug: string, promptTokens: number, completionTokens: number): bigint {
  const row = h.deps.catalog.find(slug)!;
  return BigInt(
    Math.round(promptTokens * row.retail_input_usd_per_mtok! + completionTokens * row.retail_output_usd_per_mtok!),
  );
}

/** Polls until `done` holds (a stream settles its bill right after `[DONE]`). */
async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(10);
  }
}

/**
 * Swaps one method of the sandbox provider (the only upstream routed) for the length of `run`: the way to make
 * an upstream fail or fall silent without a second upstream in the harness.
 */
async function withSandbox<K extends 'chat' | 'chatStream'>(
  method: K,
  impl: NonNullable<UpstreamProvider[K]>,
  run: () => Promise<void>,
): Promise<void> {
  const provider = h.deps.routes.chain(MODEL, 'chat')[0]!.provider as UpstreamProvider;
  const original = provider[method];
  provider[method] = impl as UpstreamProvider[K];
  try {
    await run();
  } finally {
    provider[method] = original;
  }
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
  JSON.stringify({
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model: MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
  });

const usageRequests = async (key: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key })).requests as Record<string, unknown>[];

describe('POST /v1/compat/chat/completions: 200', () => {
  it('409 idempotency_conflict for a key reused with another body; the same body is replayed; 400 for a malformed key', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    await expectIdempotencyContract(
      (body, key) => chat(apiKey, body, { headers: { 'idempotency-key': key } }),
      { first: { model: MODEL, messages: hello }, other: { model: MODEL, messages: user('Say goodbye') } },
      'compat',
    );
  });

  it('the completion unwrapped; usage.cost is exactly what the ledger posted; the call is in the usage log', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const before = await h.deps.ledger.postedSpend(accountId);
    const response = await chat(apiKey, { model: MODEL, messages: hello });
    expect(response.status, response.text).toBe(200);
    const body = response.body;
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
    });
    expect(body).not.toHaveProperty('exception');
    expect(body.id).toMatch(/^chatcmpl-/);
    expect(Number.isInteger(body.created)).toBe(true);
    const content: string = body.choices[0].message.content;
    expect(content).toMatch(/^Sandbox reply \(gpt-5-mini\): \S/);

    const usage = body.usage;
    expect(usage.prompt_tokens).toBe(estimatePromptTokens({ messages: hello }));
    expect(usage.completion_tokens).toBe(countTokens(content));
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage.prompt_tokens_details).toEqual({ cached_tokens: 0 });
    expect(usage).not.toHaveProperty('cost_rub');
    expect(usage).not.toHaveProperty('fx_rate_rub');
    const posted = (await h.deps.ledger.postedSpend(accountId)) - before;
    expect(posted).toBeGreaterThan(0n);
    expect(micros(usage.cost)).toBe(posted);
    expect(posted).toBe(retailMicros(MODEL, usage.prompt_tokens, usage.completion_tokens));

    const requestId = response.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
    const requests = await usageRequests(apiKey);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      request_id: requestId,
      key_id: keyId,
      model: MODEL,
      kind: 'chat',
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.total_tokens,
      cost_usd: usage.cost,
    });
    const account = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey }));
    expect(micros(account.balance_usd)).toBe(10_000_000n - posted);
  });

  it('without `model`: the catalog default_model serves and is billed', async () => {
    const { default_model: defaultModel } = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/models/catalog'));
    expect(defaultModel).toBe(h.deps.catalog.defaultModel);
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await chat(apiKey, { messages: hello });
    expect(response.status, response.text).toBe(200);
    expect(response.body.model).toBe(defaultModel);
    expect(response.body.choices[0].message.content.startsWith(`Sandbox reply (${defaultModel}): `)).toBe(true);
    expect((await usageRequests(apiKey)).map((r) => r.model)).toEqual([defaultModel]);
  });

  it('an alias resolves to the native slug: answered, priced and logged as the slug', async () => {
    const row = h.deps.catalog.find(MODEL)!;
    expect(row.aliases).toContain('openai/gpt-5-mini');
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const byAlias = await chat(apiKey, { model: 'openai/gpt-5-mini', messages: hello });
    expect(byAlias.status, byAlias.text).toBe(200);
    expect(byAlias.body.model).toBe(MODEL);
    const bySlug = await chat(apiKey, { model: MODEL, messages: hello });
    expect(byAlias.body.choices[0].message.content).toBe(bySlug.body.choices[0].message.content);
    expect(byAlias.body.usage.cost).toBe(bySlug.body.usage.cost);
    expect((await usageRequests(apiKey)).map((r) => r.model)).toEqual([MODEL, MODEL]);
  });

  it('billed in rubles: usage.cost_rub at the lot rate and fx_rate_rub', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 100);
    expectNativeOk(await call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key: apiKey, body: { enabled: true } }));
    const response = await chat(apiKey, { model: MODEL, messages: hello });
    expect(response.status, response.text).toBe(200);
    const { usage } = response.body;
    expect(micros(usage.cost)).toBe(await h.deps.ledger.postedSpend(accountId));
    expect(usage.cost_rub).toBe(Number(micros(usage.cost) * 100n) / 1e6);
    expect(usage.fx_rate_rub).toBe(100);
    const [record] = await usageRequests(apiKey);
    expect(record).toMatchObject({
      cost_usd: usage.cost,
      cost_rub: usage.cost_rub,
      fx_rate_rub: 100,
      rub_pricing: 'billed',
    });
  });

  it('standard fields (tools, tool_choice, seed, response_format, logprobs, stop, user, …) are accepted and forwarded', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const plain = await chat(apiKey, { model: MODEL, messages: hello });
    const response = await chat(apiKey, {
      model: MODEL,
      messages: hello,
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
        },
      ],
      tool_choice: 'auto',
      seed: 7,
      response_format: { type: 'json_object' },
      logprobs: true,
      top_logprobs: 2,
      stop: ['\n\n'],
      n: 1,
      user: 'end-user-42',
      presence_penalty: 0,
      frequency_penalty: 0,
      temperature: 0,
      top_p: 1,
      max_completion_tokens: 1000,
    });
    expect(response.status, response.text).toBe(200);
    // The sandbox answers on the messages only, so the extra fields change nothing but were not refused.
    expect(response.body.choices[0].message.content).toBe(plain.body.choices[0].message.content);
  });

  it('a tool-calling conversation: assistant with tool_calls and null content, then a tool message', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await chat(apiKey, {
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Weather?' },
            { type: 'image_url', image_url: { url: ONE_PIXEL_PNG, detail: 'low' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 3}' },
      ],
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body.choices[0].finish_reason).toBe('stop');
  });

  it('max_tokens caps the reply: finish_reason length and completion_tokens ≤ max_tokens', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await chat(apiKey, { model: MODEL, messages: hello, max_tokens: 3 });
    expect(response.status, response.text).toBe(200);
    expect(response.body.choices[0].finish_reason).toBe('length');
    expect(response.body.usage.completion_tokens).toBeLessThanOrEqual(3);
  });
});

describe('POST /v1/compat/chat/completions: stream', () => {
  it('text/event-stream of chunk frames ending with [DONE]; no usage chunk unless asked; billed once', async () => {
    const reference = await h.newAccount(undefined, { balanceUsd: 10 });
    const plain = await chat(reference.apiKey, { model: MODEL, messages: hello });
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });

    const stream = await postSse(h.baseUrl, PATH, {
      key: apiKey,
      body: { model: MODEL, messages: hello, stream: true },
    });
    expect(stream.status, stream.raw).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('x-request-id')).toMatch(/^req_/);
    expect(stream.headers.get('x-ratelimit-limit')).toBe('120');
    expect(stream.raw.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(stream.frames.filter((f) => f === '[DONE]')).toHaveLength(1);
    expect(stream.frames.at(-1)).toBe('[DONE]');
    const chunks = jsonFrames(stream.frames);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks) {
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.usage ?? null).toBeNull();
      expect(chunk.choices).toHaveLength(1);
    }
    expect(chunks[0]!.choices[0].delta.role).toBe('assistant');
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    const text = chunks.map((c) => c.choices[0].delta.content ?? '').join('');
    expect(text).toBe(plain.body.choices[0].message.content);

    const posted = await eventually(
      () => h.deps.ledger.postedSpend(accountId),
      (v) => v > 0n,
    );
    expect(posted).toBe(micros(plain.body.usage.cost));
    await sleep(50);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(posted);
    const requests = await usageRequests(apiKey);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      model: MODEL,
      kind: 'chat',
      cost_usd: plain.body.usage.cost,
      completion_tokens: plain.body.usage.completion_tokens,
    });
  });

  it('stream_options.include_usage: one usage chunk (choices []) before [DONE], its cost = the ledger charge', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const stream = await postSse(h.baseUrl, PATH, {
      key: apiKey,
      body: { model: MODEL, messages: hello, stream: true, stream_options: { include_usage: true } },
    });
    expect(stream.status, stream.raw).toBe(200);
    expect(stream.frames.at(-1)).toBe('[DONE]');
    const chunks = jsonFrames(stream.frames);
    const withUsage = chunks.filter((c) => c.usage !== undefined && c.usage !== null);
    expect(withUsage).toHaveLength(1);
    const last = chunks.at(-1)!;
    expect(last).toBe(withUsage[0]);
    expect(last.choices).toEqual([]);
    const text = chunks
      .flatMap((c) => c.choices)
      .map((c: { delta: { content?: string } }) => c.delta.content ?? '')
      .join('');
    expect(last.usage).toMatchObject({
      prompt_tokens: estimatePromptTokens({ messages: hello }),
      completion_tokens: countTokens(text),
      total_tokens: estimatePromptTokens({ messages: hello }) + countTokens(text),
    });
    expect(last.usage.cost).toBeGreaterThan(0);
    const posted = await eventually(
      () => h.deps.ledger.postedSpend(accountId),
      (v) => v > 0n,
    );
    expect(posted).toBe(micros(last.usage.cost));
    expect(posted).toBe(retailMicros(MODEL, last.usage.prompt_tokens, last.usage.completion_tokens));
    await sleep(50);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(posted);
    expect(await usageRequests(apiKey)).toHaveLength(1);
  });

  it('stream_options.include_usage false: no usage chunk', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const stream = await postSse(h.baseUrl, PATH, {
      key: apiKey,
      body: { model: MODEL, messages: hello, stream: true, stream_options: { include_usage: false } },
    });
    expect(stream.status, stream.raw).toBe(200);
    expect(jsonFrames(stream.frames).every((c) => (c.usage ?? null) === null && c.choices.length === 1)).toBe(true);
    expect(stream.frames.at(-1)).toBe('[DONE]');
  });

  it('errors found before the stream opens are plain JSON errors', async () => {
    const { apiKey } = await h.newAccount(); // $0
    const response = await chat(apiKey, { model: MODEL, messages: hello, stream: true });
    expectCompatError(response, 402, 'insufficient_balance');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  });
});

describe('POST /v1/compat/chat/completions: upstream failures', () => {
  it('non-stream: every upstream 5xx → 502 upstream_server_error, retryable, nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    await withSandbox(
      'chat',
      async () => {
        throw new UpstreamError({ kind: 'http', status: 503, message: 'down' });
      },
      async () => {
        const response = await chat(apiKey, { model: MODEL, messages: hello });
        expectCompatError(response, 502, 'upstream_server_error');
        expect(response.headers.get('x-should-retry')).toBe('true');
      },
    );
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd).toBe(10);
  });

  it('non-stream: every upstream 429 → 429 upstream_rate_limit', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    await withSandbox(
      'chat',
      async () => {
        throw new UpstreamError({ kind: 'http', status: 429, message: 'slow down', retryAfterSec: 3 });
      },
      async () => {
        expectCompatError(await chat(apiKey, { model: MODEL, messages: hello }), 429, 'upstream_rate_limit');
      },
    );
  });

  it('stream: an upstream that dies after the first token → its chunks, one error frame, [DONE]; nothing billed', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    async function* dying(): AsyncGenerator<StreamEvent> {
      yield { data: chunk({ role: 'assistant', content: '' }) };
      yield { data: chunk({ content: 'Hello' }) };
      throw new UpstreamError({ kind: 'http', status: 500, message: 'connection reset' });
    }
    await withSandbox(
      'chatStream',
      async (): Promise<ChatStream> => ({ events: dying() }),
      async () => {
        const stream = await postSse(h.baseUrl, PATH, {
          key: apiKey,
          body: { model: MODEL, messages: hello, stream: true },
        });
        expect(stream.status).toBe(200);
        expect(stream.frames).toHaveLength(4);
        expect(stream.frames[0]).toBe(chunk({ role: 'assistant', content: '' })); // forwarded byte for byte
        expect(stream.frames[1]).toBe(chunk({ content: 'Hello' }));
        expect(JSON.parse(stream.frames[2]!)).toEqual({
          error: { message: expect.any(String), type: 'api_error', code: 'upstream_error' },
        });
        expect(stream.frames[3]).toBe('[DONE]');
      },
    );
    await sleep(30);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd).toBe(10);
    expect(await usageRequests(apiKey)).toEqual([]);
  });

  it('stream: every upstream silent → the empty_upstream_stream frame, then [DONE]; nothing billed', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    async function* silent(): AsyncGenerator<StreamEvent> {
      yield { data: chunk({ role: 'assistant', content: '' }) }; // accepted, but no token ever follows
    }
    await withSandbox(
      'chatStream',
      async (): Promise<ChatStream> => ({ events: silent() }),
      async () => {
        const stream = await postSse(h.baseUrl, PATH, {
          key: apiKey,
          body: { model: MODEL, messages: hello, stream: true },
        });
        expect(stream.status).toBe(200);
        expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
        expect(stream.frames).toHaveLength(2);
        expect(JSON.parse(stream.frames[0]!)).toEqual({
          error: { message: expect.any(String), type: 'api_error', code: 'empty_upstream_stream' },
        });
        expect(stream.frames[1]).toBe('[DONE]');
      },
    );
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd).toBe(10);
  });

  it('keep-alive: an upstream failure after the 200 → a KeepAliveError body (error before choices); nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    await withSandbox(
      'chat',
      async () => {
        throw new UpstreamError({ kind: 'http', status: 500, message: 'down' });
      },
      async () => {
        const response = await chat(apiKey, { model: MODEL, messages: hello, max_tokens: 8000 });
        expect(response.status).toBe(200);
        expect(response.text).toMatch(/^\s+\{/);
        expect(JSON.parse(response.text)).toEqual({
          error: { message: expect.any(String), type: 'api_error', code: 'upstream_server_error' },
          request_id: response.headers.get('x-request-id'),
        });
      },
    );
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });
});

describe('POST /v1/compat/chat/completions: keep-alive path (max_tokens > 4096, non-stream)', () => {
  it('leading whitespace, then the completion JSON; billed like any completion', async () => {
    const row = h.deps.catalog.find(MODEL)!;
    expect(row.capabilities.max_output_tokens).toBeGreaterThan(5000);
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await chat(apiKey, { model: MODEL, messages: hello, max_tokens: 5000 });
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.text).toMatch(/^\s+\{/);
    expect(response.text.startsWith('{')).toBe(false);
    const body = JSON.parse(response.text);
    expect(body).not.toHaveProperty('error');
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
    });
    expect(micros(body.usage.cost)).toBe(await h.deps.ledger.postedSpend(accountId));
  });
});

describe('POST /v1/compat/chat/completions: 400s', () => {
  let account: { accountId: string; apiKey: string };
  beforeAll(async () => {
    account = await h.newAccount(undefined, { balanceUsd: 10 });
  });

  const cases: [string, string, Record<string, unknown>][] = [
    ['model is an empty string', 'model_required', { model: '', messages: hello }],
    ['an unknown slug', 'model_not_found', { model: 'no-such-model-9000', messages: hello }],
    ['a routing variant', 'model_not_found', { model: 'gpt-5-mini:free', messages: hello }],
    ['an image model', 'model_is_image', { model: 'imgG-1', messages: hello }],
    ['an embedding model', 'model_is_retrieval', { model: 'text-embedding-3-small', messages: hello }],
    ['a rerank model', 'model_is_retrieval', { model: 'bge-reranker-v2-m3', messages: hello }],
    ['a row with available: false', 'no_provider_available', { model: 'mixtral-8x7b-instruct', messages: hello }],
    ['messages missing', 'messages_required', { model: MODEL }],
    ['messages empty', 'messages_required', { model: MODEL, messages: [] }],
    ['messages not an array', 'invalid_messages_format', { model: MODEL, messages: 'hi' }],
    ['content empty', 'empty_message_content', { model: MODEL, messages: user('') }],
    ['content whitespace only', 'empty_message_content', { model: MODEL, messages: user(' \n\t ') }],
    [
      'text parts whitespace only',
      'empty_message_content',
      { model: MODEL, messages: user([{ type: 'text', text: '  ' }]) },
    ],
    ['an unsupported role', 'invalid_messages_format', { model: MODEL, messages: [{ role: 'wizard', content: 'hi' }] }],
    [
      'a role that is not a string',
      'invalid_messages_format',
      { model: MODEL, messages: [{ role: 7, content: 'hi' }] },
    ],
    ['a message that is not an object', 'invalid_messages_format', { model: MODEL, messages: ['hi'] }],
    ['content that is a number', 'invalid_messages_format', { model: MODEL, messages: user(5) }],
    ['a part that is not an object', 'invalid_messages_format', { model: MODEL, messages: user(['hi']) }],
    [
      'a part of an unknown type',
      'invalid_messages_format',
      { model: MODEL, messages: user([{ type: 'video_url', video_url: { url: 'https://example.com/v.mp4' } }]) },
    ],
    ['a text part without text', 'invalid_messages_format', { model: MODEL, messages: user([{ type: 'text' }]) }],
    [
      'an image part in a system message',
      'invalid_messages_format',
      {
        model: MODEL,
        messages: [
          { role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
          ...hello,
        ],
      },
    ],
    [
      'a malformed base64 data URI',
      'invalid_image_payload',
      {
        model: MODEL,
        messages: user([
          { type: 'text', text: 'What is it?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,@@@@' } },
        ]),
      },
    ],
    [
      'a data URI that is not an image',
      'invalid_image_payload',
      { model: MODEL, messages: user([{ type: 'image_url', image_url: { url: 'data:text/plain;base64,aGVsbG8=' } }]) },
    ],
    [
      'an image URL that is not http(s)',
      'invalid_image_payload',
      { model: MODEL, messages: user([{ type: 'image_url', image_url: { url: 'ftp://example.com/a.png' } }]) },
    ],
    ['temperature 3', 'invalid_temperature', { model: MODEL, messages: hello, temperature: 3 }],
    ['temperature -0.5', 'invalid_temperature', { model: MODEL, messages: hello, temperature: -0.5 }],
    ['temperature a string', 'invalid_temperature', { model: MODEL, messages: hello, temperature: 'hot' }],
    ['top_p 1.5', 'invalid_top_p', { model: MODEL, messages: hello, top_p: 1.5 }],
    ['top_p -1', 'invalid_top_p', { model: MODEL, messages: hello, top_p: -1 }],
    ['max_tokens 0', 'invalid_max_tokens', { model: MODEL, messages: hello, max_tokens: 0 }],
    ['max_tokens -5', 'invalid_max_tokens', { model: MODEL, messages: hello, max_tokens: -5 }],
    ['max_tokens not an integer', 'invalid_max_tokens', { model: MODEL, messages: hello, max_tokens: 10.5 }],
    ['max_completion_tokens 0', 'invalid_max_tokens', { model: MODEL, messages: hello, max_completion_tokens: 0 }],
    [
      'max_tokens above the model output cap',
      'invalid_max_tokens',
      { model: MODEL, messages: hello, max_tokens: 128_001 },
    ],
    [
      'max_completion_tokens above the cap',
      'invalid_max_tokens',
      { model: 'gemma-2-9b-it', messages: hello, max_completion_tokens: 4097 },
    ],
    [
      'service_tier priority (billed above the catalog price)',
      'invalid_request',
      { model: MODEL, messages: hello, service_tier: 'priority' },
    ],
    [
      'prediction (billed beyond the output cap)',
      'invalid_request',
      { model: MODEL, messages: hello, prediction: { type: 'content', content: 'Hi' } },
    ],
    [
      'web_search_options (billed per search)',
      'invalid_request',
      { model: MODEL, messages: hello, web_search_options: {} },
    ],
    ['a field nobody listed', 'invalid_request', { model: MODEL, messages: hello, top_k: 40 }],
  ];

  it.each(cases)('%s → %s', async (_name, code, body) => {
    const response = await chat(account.apiKey, body);
    expectCompatError(response, 400, code);
    expect(response.body.error.type).toBe('invalid_request_error');
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await h.deps.ledger.postedSpend(account.accountId)).toBe(0n);
  });

  // Regression guard: a keyword entry (`/body/messages@required`) is about `messages` itself, not a `role`
  // missing inside one message; that is invalid_messages_format (SPEC 7.2).
  it('a message without a role → invalid_messages_format (not messages_required)', async () => {
    expectCompatError(
      await chat(account.apiKey, { model: MODEL, messages: [{ content: 'hi' }] }),
      400,
      'invalid_messages_format',
    );
  });

  // Regression guard: with both spellings sent, each must respect the cap (upstreams obey max_completion_tokens).
  it('max_completion_tokens above the cap is refused even when a small max_tokens is sent too', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await chat(apiKey, {
      model: MODEL,
      messages: hello,
      max_tokens: 10,
      max_completion_tokens: 128_001,
    });
    expectCompatError(response, 400, 'invalid_max_tokens');
  });

  it('schema findings name the field in meta.fields and in error.param (temperature, messages[1].role)', async () => {
    const temperature = await chat(account.apiKey, { model: MODEL, messages: hello, temperature: 3 });
    expectCompatError(temperature, 400, 'invalid_temperature');
    expect(temperature.body.error.meta.fields[0]).toMatchObject({ type: 'maximum', loc: ['body', 'temperature'] });
    expect(temperature.body.error.param).toBe('temperature');
    const role = await chat(account.apiKey, { model: MODEL, messages: [...hello, { role: 'wizard', content: 'x' }] });
    expectCompatError(role, 400, 'invalid_messages_format');
    expect(role.body.error.meta.fields[0].loc).toEqual(['body', 'messages', 1, 'role']);
    expect(role.body.error.param).toBe('messages[1].role');
    const unknown = await chat(account.apiKey, { model: 'no-such-model', messages: hello });
    expectCompatError(unknown, 400, 'model_not_found');
    expect(unknown.body.error.param).toBe('model');
    const noKey = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
      body: { model: MODEL, messages: hello },
    });
    expectCompatError(noKey, 401, 'authentication_required');
    expect(noKey.body.error.param).toBeNull();
  });

  it('max_tokens above the cap says the cap in meta.max_tokens', async () => {
    const response = await chat(account.apiKey, { model: MODEL, messages: hello, max_tokens: 128_001 });
    expectCompatError(response, 400, 'invalid_max_tokens');
    expect(response.body.error.meta.max_tokens).toBe(128_000);
  });

  it('context_window_exceeded: a prompt over a small model’s window, and prompt + max_tokens over it', async () => {
    const row = h.deps.catalog.find('gemma-2-9b-it')!;
    expect(row.capabilities).toMatchObject({ context_tokens: 8192, max_output_tokens: 4096 });
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const huge = await chat(apiKey, { model: 'gemma-2-9b-it', messages: user('lorem ipsum '.repeat(6000)) });
    expectCompatError(huge, 400, 'context_window_exceeded');
    expect(huge.body.error.type).toBe('context_length_exceeded');
    // What client libraries match on to raise their own context-overflow error (LangChain), and the field at fault.
    expect(huge.body.error.message).toContain('maximum context length');
    expect(huge.body.error.param).toBe('messages');
    expect(huge.body.error.meta).toMatchObject({
      limit: 8192,
      prompt_tokens: estimatePromptTokens({ messages: user('lorem ipsum '.repeat(6000)) }),
    });

    const half = user('lorem ipsum '.repeat(3000));
    const promptTokens = estimatePromptTokens({ messages: half });
    expect(promptTokens).toBeGreaterThan(4096); // so a max_tokens within the output cap can overflow the window
    const room = 8192 - promptTokens;
    const over = await chat(apiKey, { model: 'gemma-2-9b-it', messages: half, max_tokens: room + 1 });
    expectCompatError(over, 400, 'context_window_exceeded');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    const fits = await chat(apiKey, { model: 'gemma-2-9b-it', messages: half, max_tokens: room });
    expect(fits.status, fits.text).toBe(200);
  });

  it('message_too_long: a single message over MAX_MESSAGE_CHARS', async () => {
    const small = await startHarness({ MAX_MESSAGE_CHARS: '100' });
    try {
      const { accountId, apiKey } = await small.newAccount(undefined, { balanceUsd: 10 });
      const at = await call(small.baseUrl, 'POST', PATH, {
        key: apiKey,
        body: { model: MODEL, messages: user('x'.repeat(100)) },
      });
      expect(at.status, at.text).toBe(200);
      const over = await call(small.baseUrl, 'POST', PATH, {
        key: apiKey,
        body: { model: MODEL, messages: [...hello, { role: 'user', content: 'é'.repeat(101) }] },
      });
      expectCompatError(over, 400, 'message_too_long');
      expect(over.body.error.meta.limit).toBe(100);
      expect(over.body.error.meta.fields[0].loc).toEqual(['body', 'messages', 1, 'content']);
      const parts = await call(small.baseUrl, 'POST', PATH, {
        key: apiKey,
        body: {
          model: MODEL,
          messages: user([
            { type: 'text', text: 'a'.repeat(60) },
            { type: 'text', text: 'b'.repeat(60) },
          ]),
        },
      });
      expectCompatError(parts, 400, 'message_too_long');
      const spent = await small.deps.ledger.postedSpend(accountId);
      expect(micros(at.body.usage.cost)).toBe(spent);
    } finally {
      await small.close();
    }
  });
});

describe('POST /v1/compat/chat/completions: other statuses', () => {
  it('402 insufficient_balance on a $0 account: nothing charged, nothing logged', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const response = await chat(apiKey, { model: MODEL, messages: hello });
    expectCompatError(response, 402, 'insufficient_balance');
    expect(response.body.error.type).toBe('insufficient_quota');
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(await usageRequests(apiKey)).toEqual([]);
  });

  it('a 1,000,000-character prompt without a space from a $0 key is refused 402 like any other (counting it stays linear)', async () => {
    const roomy = await startHarness(); // the default 20 MB body cap
    try {
      const { accountId, apiKey } = await roomy.newAccount();
      const response = await call(roomy.baseUrl, 'POST', PATH, {
        key: apiKey,
        body: { model: MODEL, messages: user('a'.repeat(1_000_000)) },
      });
      expectCompatError(response, 402, 'insufficient_balance');
      expect(await roomy.deps.ledger.postedSpend(accountId)).toBe(0n);
    } finally {
      await roomy.close();
    }
  });

  it('402 on the worst case (max_tokens × output rate), even when the real call would cost less', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 0.01 });
    // gpt-5-mini: no max_tokens → its 128000-token output cap at $2/Mtok = $0.256 worst case.
    expectCompatError(await chat(apiKey, { model: MODEL, messages: hello }), 402, 'insufficient_balance');
    const capped = await chat(apiKey, { model: MODEL, messages: hello, max_tokens: 1000 });
    expect(capped.status, capped.text).toBe(200);
    expect(micros(capped.body.usage.cost)).toBe(await h.deps.ledger.postedSpend(accountId));
  });

  it('401 authentication_required without a key; invalid_api_key with either header style; X-API-Key works', async () => {
    expectCompatError(await chat(undefined, { model: MODEL, messages: hello }), 401, 'authentication_required');
    expectCompatError(await chat(`cgw_${'Z'.repeat(40)}`, { model: MODEL, messages: hello }), 401, 'invalid_api_key');
    expectCompatError(
      await chat(`cgw_${'Z'.repeat(40)}`, { model: MODEL, messages: hello }, { keyHeader: 'x-api-key' }),
      401,
      'invalid_api_key',
    );
    expectCompatError(
      await chat('sk-not-ours', { model: MODEL, messages: hello }, { keyHeader: 'x-api-key' }),
      401,
      'invalid_api_key',
    );
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const viaHeader = await chat(apiKey, { model: MODEL, messages: hello }, { keyHeader: 'x-api-key' });
    expect(viaHeader.status, viaHeader.text).toBe(200);
  });

  it('401 comes before validation', async () => {
    expectCompatError(await chat(undefined, { temperature: 9 }), 401, 'authentication_required');
  });

  it('413 request_too_large over the body cap', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(
      await chat(apiKey, { model: MODEL, messages: user('x'.repeat(300 * 1024)) }),
      413,
      'request_too_large',
    );
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(
      await chat(apiKey, undefined, { rawBody: 'model=gpt-5-mini', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });

  it('400 invalid_request for malformed JSON', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(
      await chat(apiKey, undefined, { rawBody: '{"messages": [', headers: { 'content-type': 'application/json' } }),
      400,
      'invalid_request',
    );
  });

  it('429 rate_limit_per_key past the key’s own limit, with Retry-After', async () => {
    const { apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.deps.apiKeys.setKeyRateLimit(keyId, 1);
    h.deps.authenticator.invalidate({ keyId });
    const first = await chat(apiKey, { model: MODEL, messages: hello });
    expect(first.status, first.text).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('1');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await chat(apiKey, { model: MODEL, messages: hello });
    expectCompatError(limited, 429, 'rate_limit_per_key');
    expect(limited.body.error.type).toBe('rate_limit_exceeded');
    expect(limited.headers.get('x-should-retry')).toBe('true');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The limit is checked while the body is read: over it, a broken body is still a 429 (nothing else was looked at).
    const brokenAndLimited = await chat(apiKey, undefined, {
      rawBody: '{"messages": [',
      headers: { 'content-type': 'application/json' },
    });
    expectCompatError(brokenAndLimited, 429, 'rate_limit_per_key');
    expect(brokenAndLimited.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('503 billing_temporarily_unavailable when the ledger is unreachable, retryable', async () => {
    const broken = await startHarness({ API_KEY_CACHE_TTL_MS: '600000' });
    try {
      const { apiKey } = await broken.newAccount(undefined, { balanceUsd: 10 });
      expectNativeOk(await call(broken.baseUrl, 'GET', '/v1/account', { key: apiKey })); // the key is now cached
      await broken.deps.db.knex.destroy();
      const response = await call(broken.baseUrl, 'POST', PATH, {
        key: apiKey,
        body: { model: MODEL, messages: hello },
      });
      expectCompatError(response, 503, 'billing_temporarily_unavailable');
      expect(response.body.error.type).toBe('api_error');
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

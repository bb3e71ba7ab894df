import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens, estimatePromptTokens } from '../../src/domain/text/token-counting.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { jsonFrames, postSse } from '../setup/sse.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ BODY_LIMIT_BYTES: String(256 * 1024) });
});
afterAll(() => h.close());

const PATH = '/v1/llm/chat/completions';
const MODEL = 'gpt-5-mini';
const hello = [{ role: 'user', content: 'Say hello' }];
const user = (content: unknown) => [{ role: 'user', content }];

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

const usageRequests = async (key: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key })).requests as Record<string, unknown>[];

describe('POST /v1/llm/chat/completions: 200', () => {
  it('409 idempotency_conflict for a key reused with another body; the same body is replayed; 400 for a malformed key', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    await expectIdempotencyContract(
      (body, key) => chat(apiKey, body, { headers: { 'idempotency-key': key } }),
      { first: { model: MODEL, messages: hello }, other: { model: MODEL, messages: user('Say goodbye') } },
      'native',
    );
  });

  it('the completion in the native envelope; usage.cost is exactly what the ledger posted; the call is logged', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const before = await h.deps.ledger.postedSpend(accountId);
    const response = await chat(apiKey, { model: MODEL, messages: hello });
    const completion = expectNativeOk(response);
    expect(response.body.message).toBe('Запрос выполнен успешно');
    expect(completion).toMatchObject({
      object: 'chat.completion',
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
    });
    expect(completion.id).toMatch(/^chatcmpl-/);
    const content: string = completion.choices[0].message.content;
    expect(content).toMatch(/^Sandbox reply \(gpt-5-mini\): \S/);

    const usage = completion.usage;
    expect(usage.prompt_tokens).toBe(estimatePromptTokens({ messages: hello }));
    expect(usage.completion_tokens).toBe(countTokens(content));
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
    expect(usage).not.toHaveProperty('cost_rub');
    expect(usage).not.toHaveProperty('fx_rate_rub');
    const posted = (await h.deps.ledger.postedSpend(accountId)) - before;
    expect(posted).toBeGreaterThan(0n);
    expect(micros(usage.cost)).toBe(posted);
    expect(posted).toBe(retailMicros(MODEL, usage.prompt_tokens, usage.completion_tokens));

    const requestId = response.headers.get('x-request-id');
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
      cost_usd: usage.cost,
    });
  });

  it('the same messages give the same reply and price as the compat surface', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const native = expectNativeOk(await chat(apiKey, { model: MODEL, messages: hello }));
    const compat = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
      key: apiKey,
      body: { model: MODEL, messages: hello },
    });
    expect(compat.status, compat.text).toBe(200);
    expect(native.choices[0].message.content).toBe(compat.body.choices[0].message.content);
    expect(native.usage).toEqual(compat.body.usage);
  });

  it('without `model`: the catalog default_model serves', async () => {
    const { default_model: defaultModel } = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/models/catalog'));
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const completion = expectNativeOk(await chat(apiKey, { messages: hello }));
    expect(completion.model).toBe(defaultModel);
    expect((await usageRequests(apiKey)).map((r) => r.model)).toEqual([defaultModel]);
  });

  it('an alias resolves to the native slug', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const completion = expectNativeOk(await chat(apiKey, { model: 'gpt-5-mini-2025-08-07', messages: hello }));
    expect(completion.model).toBe(MODEL);
    expect(completion.choices[0].message.content.startsWith('Sandbox reply (gpt-5-mini): ')).toBe(true);
    expect((await usageRequests(apiKey)).map((r) => r.model)).toEqual([MODEL]);
  });

  it('billed in rubles: usage.cost_rub at the lot rate, no fx_rate_rub on the native surface', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 100);
    expectNativeOk(await call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key: apiKey, body: { enabled: true } }));
    const { usage } = expectNativeOk(await chat(apiKey, { model: MODEL, messages: hello }));
    expect(micros(usage.cost)).toBe(await h.deps.ledger.postedSpend(accountId));
    expect(usage.cost_rub).toBe(Number(micros(usage.cost) * 100n) / 1e6);
    expect(usage).not.toHaveProperty('fx_rate_rub');
  });

  it('standard fields (tools, seed, response_format, logprobs, …) are accepted', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const plain = expectNativeOk(await chat(apiKey, { model: MODEL, messages: hello }));
    const response = await chat(apiKey, {
      model: MODEL,
      messages: hello,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'none',
      seed: 42,
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      logprobs: true,
      top_logprobs: 1,
      user: 'u-1',
    });
    expect(expectNativeOk(response).choices[0].message.content).toBe(plain.choices[0].message.content);
  });
});

describe('POST /v1/llm/chat/completions: stream', () => {
  it('text/event-stream of bare chunk frames (no envelope) ending with [DONE]; no usage chunk unless asked; billed once', async () => {
    const reference = await h.newAccount(undefined, { balanceUsd: 10 });
    const plain = expectNativeOk(await chat(reference.apiKey, { model: MODEL, messages: hello }));
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const stream = await postSse(h.baseUrl, PATH, {
      key: apiKey,
      body: { model: MODEL, messages: hello, stream: true },
    });
    expect(stream.status, stream.raw).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.raw.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(stream.frames.at(-1)).toBe('[DONE]');
    const chunks = jsonFrames(stream.frames);
    for (const chunk of chunks) {
      expect(chunk).not.toHaveProperty('exception');
      expect(chunk.object).toBe('chat.completion.chunk');
      expect(chunk.usage ?? null).toBeNull();
    }
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe(plain.choices[0].message.content);
    const posted = await eventually(
      () => h.deps.ledger.postedSpend(accountId),
      (v) => v > 0n,
    );
    expect(posted).toBe(micros(plain.usage.cost));
    await sleep(50);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(posted);
    expect(await usageRequests(apiKey)).toHaveLength(1);
  });

  it('stream_options.include_usage: the usage chunk carries cost = the ledger charge', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const stream = await postSse(h.baseUrl, PATH, {
      key: apiKey,
      body: { model: MODEL, messages: hello, stream: true, stream_options: { include_usage: true } },
    });
    expect(stream.status, stream.raw).toBe(200);
    expect(stream.frames.at(-1)).toBe('[DONE]');
    const chunks = jsonFrames(stream.frames);
    const withUsage = chunks.filter((c) => (c.usage ?? null) !== null);
    expect(withUsage).toHaveLength(1);
    expect(chunks.at(-1)).toBe(withUsage[0]);
    const { usage } = withUsage[0]!;
    expect(withUsage[0]!.choices).toEqual([]);
    const posted = await eventually(
      () => h.deps.ledger.postedSpend(accountId),
      (v) => v > 0n,
    );
    expect(posted).toBe(micros(usage.cost));
    expect(posted).toBe(retailMicros(MODEL, usage.prompt_tokens, usage.completion_tokens));
    await sleep(50);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(posted);
  });
});

describe('POST /v1/llm/chat/completions: keep-alive path (max_tokens > 4096, non-stream)', () => {
  it('leading whitespace, then the native envelope with the completion', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await chat(apiKey, { model: MODEL, messages: hello, max_completion_tokens: 4097 });
    expect(response.status, response.text).toBe(200);
    expect(response.text).toMatch(/^\s+\{/);
    const body = JSON.parse(response.text);
    expect(body).toMatchObject({
      exception: 0,
      data: { object: 'chat.completion', model: MODEL, choices: [{ message: { role: 'assistant' } }] },
    });
    expect(body).not.toHaveProperty('error');
    expect(micros(body.data.usage.cost)).toBe(await h.deps.ledger.postedSpend(accountId));
  });

  it('max_tokens of exactly 4096 is a plain JSON answer (no leading whitespace)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await chat(apiKey, { model: MODEL, messages: hello, max_tokens: 4096 });
    expect(response.status, response.text).toBe(200);
    expect(response.text.startsWith('{')).toBe(true);
  });
});

describe('POST /v1/llm/chat/completions: 400s', () => {
  let account: { accountId: string; apiKey: string };
  beforeAll(async () => {
    account = await h.newAccount(undefined, { balanceUsd: 10 });
  });

  const cases: [string, string, Record<string, unknown>][] = [
    ['model is an empty string', 'model_required', { model: '', messages: hello }],
    ['an unknown slug', 'model_not_found', { model: 'no-such-model-9000', messages: hello }],
    ['an image model', 'model_is_image', { model: 'imgG-1', messages: hello }],
    ['an embedding model', 'model_is_retrieval', { model: 'alpha-embedding-001', messages: hello }],
    ['a rerank model', 'model_is_retrieval', { model: 'qwen3-rerank', messages: hello }],
    ['a row with available: false', 'no_provider_available', { model: 'claude-3-haiku', messages: hello }],
    ['messages missing', 'messages_required', { model: MODEL }],
    ['messages empty', 'messages_required', { model: MODEL, messages: [] }],
    ['content empty', 'empty_message_content', { model: MODEL, messages: user('') }],
    ['content whitespace only', 'empty_message_content', { model: MODEL, messages: user('   ') }],
    ['an unsupported role', 'invalid_messages_format', { model: MODEL, messages: [{ role: 'robot', content: 'hi' }] }],
    [
      'a part of an unknown type',
      'invalid_messages_format',
      { model: MODEL, messages: user([{ type: 'file', file: {} }]) },
    ],
    [
      'an image_url part without url',
      'invalid_messages_format',
      { model: MODEL, messages: user([{ type: 'image_url', image_url: {} }]) },
    ],
    [
      'a malformed base64 data URI',
      'invalid_image_payload',
      { model: MODEL, messages: user([{ type: 'image_url', image_url: { url: 'data:image/jpeg;base64,abc' } }]) },
    ],
    ['temperature 3', 'invalid_temperature', { model: MODEL, messages: hello, temperature: 3 }],
    ['top_p 1.5', 'invalid_top_p', { model: MODEL, messages: hello, top_p: 1.5 }],
    ['max_tokens 0', 'invalid_max_tokens', { model: MODEL, messages: hello, max_tokens: 0 }],
    [
      'max_tokens above the model output cap',
      'invalid_max_tokens',
      { model: MODEL, messages: hello, max_tokens: 128_001 },
    ],
  ];

  it.each(cases)('%s → %s', async (_name, code, body) => {
    const response = await chat(account.apiKey, body);
    expectNativeError(response, 400, code);
    expect(response.body.message).toBe('Некорректный запрос');
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await h.deps.ledger.postedSpend(account.accountId)).toBe(0n);
  });

  it('schema findings keep meta.fields beside the code', async () => {
    const response = await chat(account.apiKey, { model: MODEL, messages: hello, top_p: 1.5 });
    expectNativeError(response, 400, 'invalid_top_p');
    expect(response.body.data.error).toMatch(/^body\.top_p: /);
    expect(response.body.data.meta.fields[0]).toMatchObject({ type: 'maximum', loc: ['body', 'top_p'] });
  });

  it('context_window_exceeded: a huge prompt on a small-context model', async () => {
    const response = await chat(account.apiKey, {
      model: 'gemma-2-9b-it',
      messages: user('lorem ipsum '.repeat(6000)),
    });
    expectNativeError(response, 400, 'context_window_exceeded');
    expect(response.body.data.meta.limit).toBe(8192);
  });

  it('message_too_long: a single message over MAX_MESSAGE_CHARS', async () => {
    const small = await startHarness({ MAX_MESSAGE_CHARS: '50' });
    try {
      const { apiKey } = await small.newAccount(undefined, { balanceUsd: 10 });
      const over = await call(small.baseUrl, 'POST', PATH, {
        key: apiKey,
        body: { model: MODEL, messages: user('x'.repeat(51)) },
      });
      expectNativeError(over, 400, 'message_too_long');
      expect(over.body.data.meta.limit).toBe(50);
    } finally {
      await small.close();
    }
  });
});

describe('POST /v1/llm/chat/completions: other statuses', () => {
  it('402 insufficient_balance on a $0 account: nothing charged, nothing logged', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const response = await chat(apiKey, { model: MODEL, messages: hello });
    expectNativeError(response, 402, 'insufficient_balance');
    expect(response.body.message).toBe('Недостаточно средств на балансе');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(await usageRequests(apiKey)).toEqual([]);
  });

  it('401 with neither header, and invalid_api_key with either header style', async () => {
    expectNativeError(await chat(undefined, { model: MODEL, messages: hello }), 401, 'authentication_required');
    expectNativeError(await chat(`cgw_${'Q'.repeat(40)}`, { model: MODEL, messages: hello }), 401, 'invalid_api_key');
    expectNativeError(
      await chat(`cgw_${'Q'.repeat(40)}`, { model: MODEL, messages: hello }, { keyHeader: 'x-api-key' }),
      401,
      'invalid_api_key',
    );
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectNativeOk(await chat(apiKey, { model: MODEL, messages: hello }, { keyHeader: 'x-api-key' }));
  });

  it('413 request_too_large over the body cap', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectNativeError(
      await chat(apiKey, { model: MODEL, messages: user('x'.repeat(300 * 1024)) }),
      413,
      'request_too_large',
    );
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectNativeError(
      await chat(apiKey, undefined, { rawBody: 'hello', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });

  it('429 rate_limit_per_key past the key’s own limit', async () => {
    const { apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.deps.apiKeys.setKeyRateLimit(keyId, 1);
    h.deps.authenticator.invalidate({ keyId });
    expectNativeOk(await chat(apiKey, { model: MODEL, messages: hello }));
    const limited = await chat(apiKey, { model: MODEL, messages: hello });
    expectNativeError(limited, 429, 'rate_limit_per_key');
    expect(limited.headers.get('x-should-retry')).toBe('true');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
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
      expectNativeError(response, 503, 'billing_temporarily_unavailable');
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

/**
 * The official `openai` npm client (v6, DESIGN.md 5 and 7) against a live gateway serving the embedded sandbox
 * upstream: what a client that points its existing OpenAI code at `/v1/compat` gets. The SDK sends
 * `encoding_format: base64` by default and decodes it, reads `error.code`, `x-request-id` and `x-should-retry`.
 *
 * Every client here has `maxRetries: 0` (no waiting on back-off) except the one that checks that a 400 is not
 * retried. A wrapped `fetch` records what the SDK actually sent and received, so the tests can count requests
 * and read the raw error body (`request_id` is at its top level, outside the `error` object the SDK keeps).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../setup/harness.js';

interface Exchange {
  url: string;
  body: Record<string, unknown> | null;
  status: number;
  headers: Headers;
  /** The response text, read from a clone, for non-2xx answers only (a stream body is left to the SDK). */
  errorText: string | null;
}

/** A fetch that records each exchange, as the SDK's `fetch` option allows. */
function recordingFetch(exchanges: Exchange[]): typeof fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const raw = typeof init?.body === 'string' ? init.body : null;
    const response = await fetch(input, init);
    const errorText = response.ok ? null : await response.clone().text();
    exchanges.push({
      url,
      body: raw === null ? null : (JSON.parse(raw) as Record<string, unknown>),
      status: response.status,
      headers: response.headers,
      errorText,
    });
    return response;
  };
}

let h: Harness;
let apiKey: string;

function client(options: { key?: string; maxRetries?: number; exchanges?: Exchange[] } = {}): OpenAI {
  return new OpenAI({
    apiKey: options.key ?? apiKey,
    baseURL: `${h.baseUrl}/v1/compat`,
    maxRetries: options.maxRetries ?? 0,
    timeout: 10_000,
    ...(options.exchanges ? { fetch: recordingFetch(options.exchanges) } : {}),
  });
}

/** Runs `call`, expecting it to reject; returns the error so each test can assert its class and fields. */
async function rejection(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  h = await startHarness();
  ({ apiKey } = await h.newAccount(undefined, { balanceUsd: 100 }));
});
afterAll(() => h.close());

describe('official openai SDK: chat', () => {
  it('non-stream: a text answer with usage and its cost', async () => {
    const completion = await client().chat.completions.create({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'Say something about gateways.' }],
      max_tokens: 64,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('gpt-5-mini');
    const content = completion.choices[0]?.message.content ?? '';
    expect(content.length).toBeGreaterThan(0);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
    // `cost` is our addition to the usage block (SPEC 2.6); the SDK passes unknown fields through.
    const cost = (completion.usage as unknown as { cost?: unknown }).cost;
    expect(typeof cost).toBe('number');
    expect(cost as number).toBeGreaterThan(0);
  });

  it('stream with include_usage: deltas join to the text, the last chunk carries usage', async () => {
    const messages = [{ role: 'user' as const, content: 'Stream a short answer.' }];
    const stream = await client().chat.completions.create({
      model: 'gpt-5-mini',
      messages,
      max_tokens: 64,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(2);
    const text = chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage?.completion_tokens).toBeGreaterThan(0);
    expect(typeof (last.usage as unknown as { cost?: unknown }).cost).toBe('number');
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === undefined || chunk.usage === null)).toBe(true);
    // The sandbox is deterministic: the same messages, not streamed, give the same text.
    const plain = await client().chat.completions.create({ model: 'gpt-5-mini', messages, max_tokens: 64 });
    expect(text).toBe(plain.choices[0]?.message.content);
  });
});

describe('official openai SDK: embeddings', () => {
  it('default encoding: the SDK asks for base64, decodes it, and gets the float vectors', async () => {
    const exchanges: Exchange[] = [];
    const input = ['the quick brown fox', 'a ledger of holds'];
    const decoded = await client({ exchanges }).embeddings.create({ model: 'text-embedding-3-small', input });
    expect(exchanges[0]?.body?.encoding_format).toBe('base64');
    expect(decoded.data).toHaveLength(2);
    for (const item of decoded.data) {
      expect(Array.isArray(item.embedding)).toBe(true);
      expect(item.embedding).toHaveLength(1536);
      expect(item.embedding.every((x) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
    }
    expect(decoded.usage.prompt_tokens).toBeGreaterThan(0);
    const floats = await client().embeddings.create({
      model: 'text-embedding-3-small',
      input,
      encoding_format: 'float',
    });
    // base64 carries float32: equal to the float answer at float32 precision.
    decoded.data.forEach((item, i) => {
      const reference = floats.data[i]!.embedding;
      expect(item.index).toBe(i);
      expect(item.embedding).toEqual(Array.from(Float32Array.from(reference)));
    });
  });

  it('dimensions: 256 on text-embedding-3-small gives 256-long vectors', async () => {
    const result = await client().embeddings.create({
      model: 'text-embedding-3-small',
      input: 'shorter vectors',
      dimensions: 256,
    });
    expect(result.data[0]?.embedding).toHaveLength(256);
    const norm = Math.sqrt(result.data[0]!.embedding.reduce((sum, v) => sum + v * v, 0));
    expect(norm).toBeCloseTo(1, 3);
  });
});

describe('official openai SDK: errors', () => {
  it('an unknown model is a BadRequestError with code model_not_found and our request id; a 400 is not retried', async () => {
    const exchanges: Exchange[] = [];
    const err = await rejection(() =>
      // Default retries left on here on purpose: x-should-retry: false must keep the SDK from retrying.
      client({ exchanges, maxRetries: 2 }).chat.completions.create({
        model: 'no-such-model-anywhere',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const error = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error.status).toBe(400);
    expect(error.code).toBe('model_not_found');
    expect(exchanges).toHaveLength(1);
    const [exchange] = exchanges;
    expect(exchange!.headers.get('x-should-retry')).toBe('false');
    const requestId = exchange!.headers.get('x-request-id');
    expect(requestId).toMatch(/^req_/);
    expect(error.requestID).toBe(requestId);
    expect((JSON.parse(exchange!.errorText ?? '{}') as { request_id?: string }).request_id).toBe(requestId);
  });

  it("models.retrieve: a listed model in the SDK's Model shape; an unknown one is a NotFoundError with code and param", async () => {
    const model = await client().models.retrieve('text-embedding-3-small');
    expect(model).toMatchObject({ id: 'text-embedding-3-small', object: 'model', owned_by: 'openai' });
    const err = await rejection(() => client().models.retrieve('no-such-model-anywhere'));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    const error = err as InstanceType<typeof OpenAI.NotFoundError>;
    expect(error.code).toBe('model_not_found');
    expect(error.param).toBe('model');
  });

  it('a field the schema refuses is a BadRequestError whose param names it', async () => {
    const err = await rejection(() =>
      client().chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'hi' }],
        temperature: 3,
      }),
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('temperature');
  });

  it('a wrong key is an AuthenticationError with code invalid_api_key', async () => {
    const err = await rejection(() => client({ key: 'cgw_not_a_real_key' }).models.list());
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    const error = err as InstanceType<typeof OpenAI.AuthenticationError>;
    expect(error.status).toBe(401);
    expect(error.code).toBe('invalid_api_key');
    expect(error.requestID).toMatch(/^req_/);
  });

  it('a zero balance is a 402 with code insufficient_balance', async () => {
    const broke = await h.newAccount();
    const err = await rejection(() =>
      client({ key: broke.apiKey }).chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 16,
      }),
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    const error = err as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(402);
    expect(error.code).toBe('insufficient_balance');
    expect(error.requestID).toMatch(/^req_/);
  });
  it('past the key’s rate limit is a RateLimitError', async () => {
    const limited = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.deps.apiKeys.setKeyRateLimit(limited.keyId, 1);
    h.deps.authenticator.invalidate({ keyId: limited.keyId });
    await client({ key: limited.apiKey }).models.retrieve('gpt-5-mini');
    const err = await rejection(() =>
      client({ key: limited.apiKey }).chat.completions.create({
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    );
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toMatch(/^\d+$/);
  });

  it('context overflow is a BadRequestError, code context_window_exceeded, "maximum context length"', async () => {
    const err = await rejection(() =>
      client().chat.completions.create({
        model: 'gemma-2-9b-it',
        messages: [{ role: 'user', content: 'lorem ipsum '.repeat(6000) }],
      }),
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({
      code: 'context_window_exceeded',
      message: expect.stringContaining('maximum context length'),
    });
  });
});

describe('official openai SDK: Responses', () => {
  it('responses.create: output_text and usage with its cost', async () => {
    const response = await client().responses.create({
      model: 'gpt-5-mini',
      instructions: 'Be brief.',
      input: 'Say hello.',
      max_output_tokens: 64,
    });
    expect(response.output_text).toMatch(/^Sandbox reply \(gpt-5-mini\): \S/);
    expect(response.status).toBe('completed');
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
    expect((response.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
  });

  it('responses.stream: text deltas join to the final response, which carries the usage', async () => {
    const stream = client().responses.stream({
      model: 'gpt-5-mini',
      input: 'Tell me about gateways.',
      max_output_tokens: 64,
    });
    let joined = '';
    for await (const event of stream) if (event.type === 'response.output_text.delta') joined += event.delta;
    const final = await stream.finalResponse();
    expect(joined.length).toBeGreaterThan(0);
    expect(final.output_text).toBe(joined);
    expect(final.usage?.total_tokens).toBe(final.usage!.input_tokens + final.usage!.output_tokens);
  });
});

describe('official openai SDK: Idempotency-Key', () => {
  it('a retry with the same key gets the same completion and is charged once; the key with another body is a ConflictError', async () => {
    const account = await h.newAccount(undefined, { balanceUsd: 5 });
    const sdk = client({ key: account.apiKey });
    const key = `retry-${Date.now()}`;
    const ask = (content: string) =>
      sdk.chat.completions.create(
        { model: 'gpt-5-mini', messages: [{ role: 'user', content }], max_tokens: 16 },
        { headers: { 'Idempotency-Key': key } },
      );
    const first = await ask('hi');
    const spent = await h.deps.ledger.postedSpend(account.accountId);
    const again = await ask('hi');
    expect(again).toEqual(first);
    expect(await h.deps.ledger.postedSpend(account.accountId)).toBe(spent);
    const err = await rejection(() => ask('something else'));
    expect(err).toBeInstanceOf(OpenAI.ConflictError);
    expect((err as InstanceType<typeof OpenAI.ConflictError>).code).toBe('idempotency_conflict');
  });
});

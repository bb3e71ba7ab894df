/**
 * The HTTP upstream providers (src/adapters/upstream/) against the misbehaving fake upstream
 * (test/fixtures/fake-upstream.ts): what they forward, how they read usage, and that every failure arrives as
 * the right UpstreamFailure kind (SPEC 7.2 classification depends on it). No wall-clock assertions (DESIGN 5):
 * timeouts use budgets far below the test's own limit, and only the failure kind is checked.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CohereRerankProvider } from '../../src/adapters/upstream/cohere-rerank.js';
import {
  type ChatStream,
  type StreamEvent,
  UpstreamError,
  type UpstreamFailure,
} from '../../src/adapters/upstream/index.js';
import {
  type OpenAiCompatibleOptions,
  OpenAiCompatibleProvider,
} from '../../src/adapters/upstream/openai-compatible.js';
import { TeiRerankProvider } from '../../src/adapters/upstream/tei-rerank.js';
import { Canceller, type CancelSignal } from '../../src/lib/cancel-signal.js';
import { createUpstreamAgent, httpFailure, postJson, transportFailure } from '../../src/lib/outbound-http.js';
import {
  closedPortUrl,
  type FakeUpstream,
  type FakeUpstreamOptions,
  fakeChunkText,
  fakeEmbedding,
  fakeRelevance,
  fakeTokenCount,
  startFakeUpstream,
} from '../fixtures/fake-upstream.js';
import { failureOf } from '../setup/upstream-failures.js';

/** Calls here are bounded by their provider's budget only. */
const NO_DEADLINE = Number.MAX_SAFE_INTEGER;

const SMALL_MS = 150;
const MESSAGES = [{ role: 'user', content: 'Hello' }];

let fake: FakeUpstream;
let closers: Array<() => Promise<void>>;

beforeEach(async () => {
  fake = await startFakeUpstream();
  closers = [];
});

afterEach(async () => {
  await Promise.all(closers.map((close) => close()));
  await fake.close();
});

async function restartFake(options: FakeUpstreamOptions): Promise<void> {
  await fake.close();
  fake = await startFakeUpstream(options);
}

function openAi(options: Partial<OpenAiCompatibleOptions> = {}): OpenAiCompatibleProvider {
  const provider = new OpenAiCompatibleProvider({
    name: 'fake-openai',
    baseUrl: `${fake.baseUrl}/v1`,
    apiKey: 'sk-test',
    ...options,
  });
  closers.push(() => provider.close());
  return provider;
}

const signal = (): CancelSignal => new AbortController().signal;
const chatCall = (body: Record<string, unknown> = { messages: MESSAGES }, callSignal = signal()) => ({
  upstreamModel: 'vendor-model-1',
  body,
  maxOutputTokens: 256,
  signal: callSignal,
  deadlineAtMs: NO_DEADLINE,
});

/** Reads a stream to its end; returns the events seen and the error it ended with, if any. */
async function drain(stream: ChatStream): Promise<{ events: StreamEvent[]; failure: UpstreamFailure | null }> {
  const events: StreamEvent[] = [];
  try {
    for await (const event of stream.events) events.push(event);
    return { events, failure: null };
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamError);
    return { events, failure: (error as UpstreamError).failure };
  }
}

const contentOf = (event: StreamEvent | undefined): unknown => {
  const chunk = JSON.parse(event?.data ?? 'null') as { choices?: Array<{ delta?: { content?: string } }> } | null;
  return chunk?.choices?.[0]?.delta?.content;
};

describe('OpenAiCompatibleProvider.chat', () => {
  it('forwards the body unchanged but for model, stream and the output cap, to {baseUrl}/chat/completions with Bearer auth (SPEC 4.2)', async () => {
    const body = {
      model: 'our-slug',
      messages: MESSAGES,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: {} } } }],
      tool_choice: 'auto',
      response_format: { type: 'json_object' },
      seed: 42,
      logprobs: true,
      temperature: 0.3,
      stream: true,
    };
    const result = await openAi({ headers: { 'x-vendor-tag': 'gw' } }).chat(chatCall(body));
    const [request] = fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/chat/completions' });
    expect(request?.body).toEqual({ ...body, model: 'vendor-model-1', stream: false, max_completion_tokens: 256 });
    expect(request?.headers).toMatchObject({
      authorization: 'Bearer sk-test',
      'content-type': 'application/json',
      'x-vendor-tag': 'gw',
    });
    expect(result.completion).toMatchObject({ object: 'chat.completion', model: 'vendor-model-1' });
    expect(result.completion.choices).toEqual([
      { index: 0, message: { role: 'assistant', content: 'chunk1 chunk2 chunk3 ' }, finish_reason: 'stop' },
    ]);
  });

  it('sends the output cap in the field the provider is configured for, whatever the client called it', async () => {
    await openAi({ outputCapField: 'max_tokens' }).chat(chatCall({ messages: MESSAGES }));
    expect(fake.requests[0]?.body).toMatchObject({ max_tokens: 256 });
    expect(fake.requests[0]?.body).not.toHaveProperty('max_completion_tokens');
  });
  it('sends no authorization header when no key is configured (self-hosted vLLM, Ollama)', async () => {
    await openAi({ apiKey: undefined }).chat(chatCall());
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
  });

  it('reads usage, cached and reasoning tokens; a cached discount when cached tokens > 0 (SPEC 2.6)', async () => {
    await restartFake({ usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 100, reasoningTokens: 12 } });
    const result = await openAi().chat(chatCall());
    expect(result.usage).toEqual({ promptTokens: 120, completionTokens: 30, cachedTokens: 100, reasoningTokens: 12 });
    expect(result.cachedDiscountApplied).toBe(true);
  });

  it('reports no cached discount without cached tokens, and null usage when the upstream sent none', async () => {
    const provider = openAi();
    const plain = await provider.chat(chatCall());
    expect(plain.usage).toEqual({ promptTokens: 11, completionTokens: 3, cachedTokens: 0, reasoningTokens: 0 });
    expect(plain.cachedDiscountApplied).toBe(false);
    fake.setBehaviour('noUsage');
    expect(await provider.chat(chatCall())).toMatchObject({ usage: null, cachedDiscountApplied: false });
  });

  it('5xx → http with the status and the vendor message', async () => {
    fake.setBehaviour({ status: 503 });
    expect(await failureOf(openAi().chat(chatCall()))).toEqual({
      kind: 'http',
      status: 503,
      message: 'fake upstream error 503',
    });
  });

  it('429 → http with retryAfterSec from Retry-After', async () => {
    fake.setBehaviour({ status: 429, retryAfterSec: 7 });
    expect(await failureOf(openAi().chat(chatCall()))).toMatchObject({ kind: 'http', status: 429, retryAfterSec: 7 });
  });

  it('400 content filter → http with contentFilter: true (SPEC 7.2 content_filter)', async () => {
    fake.setBehaviour('contentFilter');
    const failure = await failureOf(openAi().chat(chatCall()));
    expect(failure).toMatchObject({ kind: 'http', status: 400, contentFilter: true });
    expect(failure.message).toMatch(/content management policy/);
  });

  it('a non-JSON error body → its text excerpt as the message', async () => {
    fake.setBehaviour({ status: 502, body: '<html>  Bad\n gateway </html>' });
    expect(await failureOf(openAi().chat(chatCall()))).toEqual({
      kind: 'http',
      status: 502,
      message: '<html> Bad gateway </html>',
    });
  });

  it('2xx that is not JSON, or not a chat completion → bad_response', async () => {
    const provider = openAi();
    fake.setBehaviour({ status: 200, body: 'surprise' });
    expect(await failureOf(provider.chat(chatCall()))).toMatchObject({ kind: 'bad_response' });
    fake.setBehaviour({ status: 200, body: { error: { message: 'quota exceeded' } } });
    expect(await failureOf(provider.chat(chatCall()))).toMatchObject({
      kind: 'bad_response',
      message: expect.stringMatching(/quota exceeded/),
    });
  });

  it('a body cut off after the headers → bad_response', async () => {
    fake.setBehaviour({ dieAfterChunks: 0 });
    expect(await failureOf(openAi().chat(chatCall()))).toMatchObject({ kind: 'bad_response' });
  });

  it('nothing listening → connect', async () => {
    const provider = openAi({ baseUrl: await closedPortUrl() });
    expect(await failureOf(provider.chat(chatCall()))).toMatchObject({
      kind: 'connect',
      message: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it('a silent upstream past the budget → timeout, and the fake sees the connection closed', async () => {
    fake.setBehaviour('silent');
    expect(await failureOf(openAi({ budgetMs: SMALL_MS }).chat(chatCall()))).toMatchObject({ kind: 'timeout' });
    await fake.requests[0]?.clientGone;
  });

  it('a slow first byte within the budget is fine', async () => {
    fake.setBehaviour({ slowFirstByteMs: 50 });
    expect((await openAi({ budgetMs: 5_000 }).chat(chatCall())).usage?.promptTokens).toBe(11);
  });

  it('the caller aborting → aborted (not timeout), and the fake sees the connection closed', async () => {
    fake.setBehaviour('silent');
    const controller = new AbortController();
    const pending = openAi().chat(chatCall(undefined, controller.signal));
    const request = await fake.waitForRequest(0);
    controller.abort();
    expect(await failureOf(pending)).toMatchObject({ kind: 'aborted' });
    await request.clientGone;
  });

  it('an already-aborted signal → aborted without sending anything', async () => {
    expect(await failureOf(openAi().chat(chatCall(undefined, AbortSignal.abort())))).toMatchObject({ kind: 'aborted' });
    expect(fake.requests).toEqual([]);
  });
});

describe('OpenAiCompatibleProvider.chatStream', () => {
  it('forwards with stream: true and yields every event as sent, [DONE] excluded, usage chunk included', async () => {
    const body = { model: 'our-slug', messages: MESSAGES, stream_options: { include_usage: true }, seed: 7 };
    const stream = await openAi().chatStream(chatCall(body));
    const { events, failure } = await drain(stream);
    expect(failure).toBeNull();
    expect(fake.requests[0]?.body).toEqual({
      ...body,
      model: 'vendor-model-1',
      stream: true,
      max_completion_tokens: 256,
    });
    expect(fake.requests[0]?.headers.accept).toBe('text/event-stream');
    expect(events.map(contentOf).slice(0, 3)).toEqual([0, 1, 2].map(fakeChunkText));
    expect(events).toHaveLength(4);
    expect(JSON.parse(events[3]?.data ?? '')).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: 3 },
    });
    expect(events.some((event) => event.data.includes('[DONE]'))).toBe(false);
  });

  it('passes the payload bytes through exactly, also over \\r\\n framing', async () => {
    await restartFake({ sseLineEnding: '\r\n', streamChunks: 2 });
    const { events, failure } = await drain(await openAi().chatStream(chatCall()));
    expect(failure).toBeNull();
    expect(events.map((event) => event.data)).toEqual([
      '{"id":"chatcmpl-fake-0","object":"chat.completion.chunk","created":1750000000,"model":"vendor-model-1","choices":[{"index":0,"delta":{"role":"assistant","content":"chunk1 "},"finish_reason":null}]}',
      '{"id":"chatcmpl-fake-0","object":"chat.completion.chunk","created":1750000000,"model":"vendor-model-1","choices":[{"index":0,"delta":{"content":"chunk2 "},"finish_reason":"stop"}]}',
    ]);
  });

  it('without include_usage, or with noUsage, no usage chunk', async () => {
    const provider = openAi();
    expect((await drain(await provider.chatStream(chatCall()))).events).toHaveLength(3);
    fake.setBehaviour('noUsage');
    const body = { messages: MESSAGES, stream_options: { include_usage: true } };
    expect((await drain(await provider.chatStream(chatCall(body)))).events).toHaveLength(3);
  });

  it('an HTTP error rejects the opening itself (nothing was streamed yet: routing can fail over)', async () => {
    fake.setBehaviour({ status: 429, retryAfterSec: 3 });
    expect(await failureOf(openAi().chatStream(chatCall()))).toMatchObject({
      kind: 'http',
      status: 429,
      retryAfterSec: 3,
    });
  });

  it('a JSON answer where an event stream was promised → bad_response at the opening', async () => {
    fake.setBehaviour({ status: 200, body: { error: { message: 'stream unsupported' } } });
    expect(await failureOf(openAi().chatStream(chatCall()))).toMatchObject({
      kind: 'bad_response',
      message: expect.stringMatching(/stream unsupported/),
    });
  });

  it('a silent opening past the budget → timeout', async () => {
    fake.setBehaviour({ slowFirstByteMs: 10_000 });
    expect(await failureOf(openAi({ budgetMs: SMALL_MS }).chatStream(chatCall()))).toMatchObject({ kind: 'timeout' });
  });

  it('accepted, then silent → timeout on the idle limit (SPEC 3.4: a silent upstream fails over)', async () => {
    fake.setBehaviour('silent');
    const stream = await openAi({ idleTimeoutMs: SMALL_MS }).chatStream(chatCall());
    const { events, failure } = await drain(stream);
    expect(events).toEqual([]);
    expect(failure).toMatchObject({ kind: 'timeout', message: expect.stringMatching(/silent/) });
    await fake.requests[0]?.clientGone;
  });

  it('silent mid-stream → the events so far, then timeout', async () => {
    fake.setBehaviour({ stallAfterChunks: 1 });
    const { events, failure } = await drain(await openAi({ idleTimeoutMs: SMALL_MS }).chatStream(chatCall()));
    expect(events.map(contentOf)).toEqual([fakeChunkText(0)]);
    expect(failure).toMatchObject({ kind: 'timeout' });
  });

  it('a connection that dies after one chunk → that event, then bad_response (DESIGN 8: never a clean end)', async () => {
    fake.setBehaviour({ dieAfterChunks: 1 });
    const { events, failure } = await drain(await openAi().chatStream(chatCall()));
    expect(events.map(contentOf)).toEqual([fakeChunkText(0)]);
    expect(failure).toMatchObject({ kind: 'bad_response' });
  });

  it('the caller aborting mid-stream (a Canceller, as requests use) → aborted, and the fake sees the connection closed', async () => {
    fake.setBehaviour({ stallAfterChunks: 1 });
    const controller = new Canceller();
    const stream = await openAi().chatStream(chatCall(undefined, controller));
    const seen: StreamEvent[] = [];
    const failure = await failureOf(
      (async () => {
        for await (const event of stream.events) {
          seen.push(event);
          controller.abort(new Error('the client left'));
        }
      })(),
    );
    expect(seen).toHaveLength(1);
    expect(failure.kind).toBe('aborted');
    await fake.requests[0]?.clientGone;
  });

  it('a consumer that stops early frees the connection: the next call on a one-connection pool still works', async () => {
    fake.setBehaviour({ stallAfterChunks: 2 });
    const provider = openAi({ dispatcher: oneConnectionAgent() });
    for await (const event of (await provider.chatStream(chatCall())).events) {
      expect(contentOf(event)).toBe(fakeChunkText(0));
      break;
    }
    await fake.requests[0]?.clientGone;
    fake.setBehaviour('ok');
    expect((await provider.chat(chatCall())).usage?.promptTokens).toBe(11);
  });

  it('return() before the first event frees the connection too', async () => {
    fake.setBehaviour('silent');
    const provider = openAi({ dispatcher: oneConnectionAgent() });
    const stream = await provider.chatStream(chatCall());
    await stream.events[Symbol.asyncIterator]().return?.();
    await fake.requests[0]?.clientGone;
    fake.setBehaviour('ok');
    expect((await provider.chat(chatCall())).usage?.promptTokens).toBe(11);
  });

  it('return() while a read is waiting for the upstream ends that read as aborted and frees the connection', async () => {
    fake.setBehaviour('silent');
    const provider = openAi({ dispatcher: oneConnectionAgent() });
    const iterator = (await provider.chatStream(chatCall())).events[Symbol.asyncIterator]();
    const pending = iterator.next();
    await iterator.return?.();
    expect(await failureOf(pending)).toMatchObject({ kind: 'aborted' });
    await fake.requests[0]?.clientGone;
    fake.setBehaviour('ok');
    expect((await provider.chat(chatCall())).usage?.promptTokens).toBe(11);
  });

  it('a stream nobody reads lets go of its connection after the idle limit, and then reports timeout', async () => {
    fake.setBehaviour({ stallAfterChunks: 1 });
    const stream = await openAi({ idleTimeoutMs: SMALL_MS }).chatStream(chatCall());
    await fake.requests[0]?.clientGone;
    expect((await drain(stream)).failure).toMatchObject({ kind: 'timeout' });
  });

  it('a complete stream ends at [DONE] and hands its keep-alive connection back for the next call', async () => {
    // The fake ends the response a little after [DONE]: the iterator must not wait for that, and the socket
    // must still go back to the pool rather than be destroyed.
    await restartFake({ lingerAfterDoneMs: 100 });
    const provider = openAi({ dispatcher: oneConnectionAgent() });
    expect((await drain(await provider.chatStream(chatCall()))).failure).toBeNull();
    await provider.chat(chatCall());
    expect(fake.requests[1]?.remotePort).toBe(fake.requests[0]?.remotePort);
  });

  it('a provider configured without streaming says so and refuses chatStream', async () => {
    const provider = openAi({ streams: false });
    expect(provider.streams).toBe(false);
    await expect(provider.chatStream(chatCall())).rejects.toThrow(/without streaming/);
    expect(fake.requests).toEqual([]);
  });
});

function oneConnectionAgent() {
  const agent = createUpstreamAgent({ connectionsPerOrigin: 1 });
  closers.push(() => agent.close());
  return agent;
}

describe('OpenAiCompatibleProvider.embed', () => {
  const input = ['first text', 'the second, longer text', 'third'];

  it('posts float encoding with dimensions and user, and returns the vectors in input order', async () => {
    const result = await openAi().embed({
      upstreamModel: 'text-embedding-3-small',
      input,
      dimensions: 4,
      user: 'acc_1',
      signal: signal(),
      deadlineAtMs: NO_DEADLINE,
    });
    expect(fake.requests[0]).toMatchObject({
      path: '/v1/embeddings',
      body: { model: 'text-embedding-3-small', input, encoding_format: 'float', dimensions: 4, user: 'acc_1' },
    });
    // The fake answers in reverse index order: the provider must sort by `index`.
    expect(result.vectors).toEqual(input.map((text) => fakeEmbedding(text, 4)));
    expect(result.promptTokens).toBe(input.reduce((sum, text) => sum + fakeTokenCount(text), 0));
  });

  it('forwards token-id inputs as given (OpenAI-compatible servers read them), one vector each', async () => {
    const ids = [[9906, 1917], [15339]];
    const result = await openAi().embed({
      upstreamModel: 'text-embedding-3-small',
      input: ids,
      signal: signal(),
      deadlineAtMs: NO_DEADLINE,
    });
    expect(fake.requests[0]?.body).toMatchObject({ input: ids });
    expect(result.vectors).toHaveLength(2);
  });

  it('omits dimensions and user when not given; null promptTokens without usage', async () => {
    fake.setBehaviour('noUsage');
    const result = await openAi().embed({
      upstreamModel: 'bge-m3',
      input,
      signal: signal(),
      deadlineAtMs: NO_DEADLINE,
    });
    expect(fake.requests[0]?.body).toEqual({ model: 'bge-m3', input, encoding_format: 'float' });
    expect(result.vectors.map((vector) => vector.length)).toEqual([8, 8, 8]);
    expect(result.promptTokens).toBeNull();
  });

  it('a vector count that does not match the inputs → bad_response', async () => {
    fake.setBehaviour({ status: 200, body: { data: [{ index: 0, embedding: [0.1] }] } });
    expect(
      await failureOf(openAi().embed({ upstreamModel: 'm', input, signal: signal(), deadlineAtMs: NO_DEADLINE })),
    ).toMatchObject({ kind: 'bad_response' });
  });
});

describe('postJson body cap', () => {
  it('a 2xx answer larger than the cap is a bad_response (which fails over), and the pool still serves the next call', async () => {
    const agent = oneConnectionAgent();
    const post = {
      dispatcher: agent,
      url: `${fake.baseUrl}/v1/embeddings`,
      headers: {},
      body: { model: 'm', input: ['a', 'b', 'c'] },
      signal: signal(),
      budgetMs: 5_000,
    };
    const whole = await postJson(post);
    const size = Buffer.byteLength(JSON.stringify(whole));
    expect(await failureOf(postJson({ ...post, maxBodyBytes: Math.floor(size / 2) }))).toMatchObject({
      kind: 'bad_response',
      message: expect.stringContaining('larger than'),
    });
    // The same one-connection pool still serves the next call.
    expect(await postJson({ ...post, maxBodyBytes: size * 2 })).toEqual(whole);
  });
});

describe('rerank providers', () => {
  const documents = ['Paris is the capital of France', 'Bananas are yellow', 'France borders Spain'];
  const query = 'capital of France';

  it('Cohere: POST {baseUrl}/v1/rerank {model, query, documents, top_n}; scores by index; promptTokens null', async () => {
    const provider = new CohereRerankProvider({ name: 'cohere', baseUrl: fake.baseUrl, apiKey: 'co-key' });
    closers.push(() => provider.close());
    const result = await provider.rerank({
      upstreamModel: 'rerank-v3.5',
      query,
      documents,
      topN: 2,
      signal: signal(),
      deadlineAtMs: NO_DEADLINE,
    });
    expect(fake.requests[0]).toMatchObject({
      path: '/v1/rerank',
      body: { model: 'rerank-v3.5', query, documents, top_n: 2 },
      headers: { authorization: 'Bearer co-key' },
    });
    expect(result.promptTokens).toBeNull();
    expect(result.results).toEqual([
      { index: 0, relevanceScore: fakeRelevance(query, documents[0] ?? '') },
      { index: 2, relevanceScore: fakeRelevance(query, documents[2] ?? '') },
    ]);
  });

  it('TEI: POST {baseUrl}/rerank {query, texts, raw_scores: false, truncate: true}; every text scored', async () => {
    const provider = new TeiRerankProvider({ name: 'tei', baseUrl: fake.baseUrl });
    closers.push(() => provider.close());
    const result = await provider.rerank({
      upstreamModel: 'bge-reranker',
      query,
      documents,
      topN: 1,
      signal: signal(),
      deadlineAtMs: NO_DEADLINE,
    });
    expect(fake.requests[0]).toMatchObject({
      path: '/rerank',
      body: { query, texts: documents, raw_scores: false, truncate: true },
    });
    expect(fake.requests[0]?.headers.authorization).toBeUndefined();
    expect(result.promptTokens).toBeNull();
    expect([...result.results].sort((a, b) => a.index - b.index)).toEqual(
      documents.map((text, index) => ({ index, relevanceScore: fakeRelevance(query, text) })),
    );
  });

  it('an out-of-range index → bad_response; an HTTP error → http', async () => {
    const provider = new TeiRerankProvider({ name: 'tei', baseUrl: fake.baseUrl });
    closers.push(() => provider.close());
    const call = { upstreamModel: 'm', query, documents, signal: signal(), deadlineAtMs: NO_DEADLINE };
    fake.setBehaviour({ status: 200, body: [{ index: 9, score: 0.5 }] });
    expect(await failureOf(provider.rerank(call))).toMatchObject({ kind: 'bad_response' });
    fake.setBehaviour({
      status: 413,
      body: { error: 'batch size 3 > maximum allowed batch size 2', error_type: 'Validation' },
    });
    expect(await failureOf(provider.rerank(call))).toEqual({
      kind: 'http',
      status: 413,
      message: 'batch size 3 > maximum allowed batch size 2',
    });
  });

  it('a Cohere error message (top-level `message`) is kept', async () => {
    const provider = new CohereRerankProvider({ name: 'cohere', baseUrl: fake.baseUrl });
    closers.push(() => provider.close());
    fake.setBehaviour({ status: 400, body: { message: 'invalid request: query must not be empty' } });
    expect(
      await failureOf(
        provider.rerank({ upstreamModel: 'm', query, documents, signal: signal(), deadlineAtMs: NO_DEADLINE }),
      ),
    ).toMatchObject({ message: 'invalid request: query must not be empty' });
  });
});

describe('failure mapping', () => {
  const coded = (code: string): Error => Object.assign(new Error('boom'), { code });

  it.each([
    ['UND_ERR_CONNECT_TIMEOUT', 'request', 'connect'],
    ['ENOTFOUND', 'request', 'connect'],
    ['ECONNRESET', 'request', 'connect'],
    ['UND_ERR_SOCKET', 'body', 'bad_response'],
    ['UND_ERR_HEADERS_TIMEOUT', 'request', 'timeout'],
  ] as const)('%s while %s → %s', (code, phase, kind) => {
    expect(transportFailure(coded(code), phase).kind).toBe(kind);
  });

  it('finds the code of a happy-eyeballs AggregateError', () => {
    expect(transportFailure(new AggregateError([coded('ECONNREFUSED')], 'all failed'), 'request')).toMatchObject({
      kind: 'connect',
      message: expect.stringMatching(/ECONNREFUSED/),
    });
  });

  it('reads Retry-After as an HTTP date, and retry-after-ms, and the Azure content_filter type', () => {
    const inTenSec = new Date(Date.now() + 10_500).toUTCString();
    expect(httpFailure(429, { 'retry-after': inTenSec }, '').retryAfterSec).toBeGreaterThanOrEqual(9);
    expect(httpFailure(429, { 'retry-after-ms': '1500' }, '')).toMatchObject({ retryAfterSec: 2, message: 'HTTP 429' });
    expect(httpFailure(400, {}, JSON.stringify({ error: { message: 'no', type: 'content_filter' } }))).toMatchObject({
      contentFilter: true,
      message: 'no',
    });
    expect(
      httpFailure(400, {}, JSON.stringify({ error: { message: 'bad', code: 'invalid_value' } })),
    ).not.toHaveProperty('contentFilter');
  });

  it('rejects a base URL that is not http(s) at construction (DESIGN 7: options validated at boot)', () => {
    expect(() => new OpenAiCompatibleProvider({ name: 'x', baseUrl: 'not a url' })).toThrow(/not a URL/);
    expect(() => new TeiRerankProvider({ name: 'x', baseUrl: 'ftp://host' })).toThrow(/http or https/);
  });
});

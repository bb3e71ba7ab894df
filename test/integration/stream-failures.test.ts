/**
 * SPEC 3.4 / 6.2 and DESIGN 8 end to end, reading the SSE body raw: first bytes are held until an upstream
 * answers (a silent one is failed over within STREAM_FIRST_TOKEN_TIMEOUT_MS), a stream that dies after it
 * opened ends with one error frame and `[DONE]` and is not billed, usage missing upstream is counted by us,
 * and a client that leaves pays for the work the upstream did all the same. No stream ends without `[DONE]`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/domain/text/token-counting.js';
import { type FakeBehaviour, type FakeUpstream, fakeChunkText, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { expectCompatError } from '../setup/envelopes.js';
import { type Harness, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import {
  alertLines,
  CHAT_PATH,
  expectEndsWithDone,
  expectNothingBilled,
  jsonFrames,
  MESSAGES,
  micros,
  money,
  moneyWhenSettled,
  type SseResult,
  streamChat,
  streamedText,
  within,
} from './gateway-helpers.js';

const USAGE = { promptTokens: 1000, completionTokens: 500 };
/** gpt-5-mini: 1000 × $0.25 + 500 × $2 per Mtok. */
const COST_MICROS = 1250n;
const ANSWER = [0, 1, 2].map(fakeChunkText).join('');
const FIRST_TOKEN_TIMEOUT_MS = 300;

const names = ['a', 'b'] as const;
type Name = (typeof names)[number];
const fakes = {} as Record<Name, FakeUpstream>;
const behaviours: Record<Name, FakeBehaviour> = { a: 'ok', b: 'ok' };
let arrivals: Name[] = [];
/** An upstream that takes its time over every chunk, so a client can leave in the middle of an answer. */
let slow: FakeUpstream;
/** gpt-5-nano: 1000 × $0.05 + 500 × $0.4 per Mtok. */
const SLOW_COST_MICROS = 250n;
let h: Harness;
let account: { accountId: string; apiKey: string };

beforeAll(async () => {
  for (const name of names) {
    fakes[name] = await startFakeUpstream({
      usage: USAGE,
      behaviour: () => {
        arrivals.push(name);
        return behaviours[name];
      },
    });
  }
  slow = await startFakeUpstream({
    usage: USAGE,
    streamChunks: 6,
    chunkIntervalMs: 150,
    behaviour: { slowFirstByteMs: 300 },
  });
  const upstreams = writeUpstreamsFile({
    'gpt-5-nano': [{ provider: 'fake-slow', url: slow.baseUrl, cost: { input: 0.05, output: 0.4 } }],
    'gpt-5-mini': [
      { provider: 'fake-b', url: fakes.b.baseUrl, cost: { input: 0.2, output: 2 } },
      { provider: 'fake-a', url: fakes.a.baseUrl, cost: { input: 0.1, output: 1 } },
    ],
    // The same fakes behind providers whose idle limit (100 ms) is shorter than the first-token timeout, as the
    // shipped defaults are (idle 60 s, first token 120 s).
    'gpt-4o-mini': [
      { provider: 'fake-a-idle', url: fakes.a.baseUrl, idleTimeoutMs: 100, cost: { input: 0.1, output: 0.3 } },
      { provider: 'fake-b-idle', url: fakes.b.baseUrl, idleTimeoutMs: 100, cost: { input: 0.1, output: 0.4 } },
    ],
  });
  h = await startHarness({ UPSTREAMS_FILE: upstreams, STREAM_FIRST_TOKEN_TIMEOUT_MS: String(FIRST_TOKEN_TIMEOUT_MS) });
});

afterAll(async () => {
  await h?.close();
  for (const name of names) await fakes[name]?.close();
  await slow?.close();
  removeUpstreamsFiles();
});

beforeEach(async () => {
  arrivals = [];
  Object.assign(behaviours, { a: 'ok', b: 'ok' });
  account = await h.newAccount(undefined, { balanceUsd: 5 });
});

const modelsOf = (result: SseResult) => new Set(jsonFrames(result).map((chunk) => chunk.model));
const errorFrames = (result: SseResult) => jsonFrames(result).filter((chunk) => chunk.error !== undefined);
const usageFrames = (result: SseResult) =>
  jsonFrames(result).filter((chunk) => chunk.usage !== undefined && chunk.usage !== null);

describe('stream opening: first bytes held until an upstream answers', () => {
  it('a silent first upstream (headers, then nothing) is failed over; the client sees only the second’s frames', async () => {
    behaviours.a = 'silent';
    const seenA = fakes.a.requests.length;
    const result = await streamChat(h, account.apiKey, { stream_options: { include_usage: true } });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(arrivals).toEqual(['a', 'b']);
    expect(modelsOf(result)).toEqual(new Set(['fake-b/gpt-5-mini']));
    expect(streamedText(result)).toBe(ANSWER);
    expect(errorFrames(result)).toHaveLength(0);
    expectEndsWithDone(result);
    // The silent upstream's connection was closed, not left hanging.
    await within(fakes.a.requests[seenA]!.clientGone, 2_000, 'closing the silent upstream');
    const after = await moneyWhenSettled(h, account.accountId, 1);
    expect(after.records).toHaveLength(1);
    expect(after.records[0]!.metadata).toMatchObject({ provider: 'fake-b' });
    expect(after.postedMicros).toBe(COST_MICROS);
  });

  it('every upstream silent → 200 with one empty_upstream_stream frame then [DONE]; nothing billed', async () => {
    Object.assign(behaviours, { a: 'silent', b: 'silent' });
    const before = await money(h, account.accountId);
    const result = await streamChat(h, account.apiKey, {});
    expect(result.status).toBe(200);
    expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(arrivals).toEqual(['a', 'b']);
    expect(result.frames).toHaveLength(2);
    expect(JSON.parse(result.frames[0]!)).toEqual({
      error: { message: expect.any(String), type: 'api_error', code: 'empty_upstream_stream' },
    });
    expectEndsWithDone(result);
    // SPEC 7.3: the exhausted chain raised its one alert.
    expect(alertLines(h, result.headers.get('x-request-id'))).toHaveLength(1);
    await expectNothingBilled(h, account.accountId, before);
  });

  it('every upstream silent, the providers’ idle limit shorter than the first-token timeout → still empty_upstream_stream', async () => {
    Object.assign(behaviours, { a: 'silent', b: 'silent' });
    const before = await money(h, account.accountId);
    const result = await streamChat(h, account.apiKey, { model: 'gpt-4o-mini' });
    await expectNothingBilled(h, account.accountId, before);
    expect(result.status, result.raw).toBe(200);
    expect(errorFrames(result).map((f) => f.error.code)).toEqual(['empty_upstream_stream']);
    expectEndsWithDone(result);
  });

  it('every upstream accepts, then closes the stream without a token → empty_upstream_stream frame then [DONE]', async () => {
    Object.assign(behaviours, { a: { dieAfterChunks: 0 }, b: { dieAfterChunks: 0 } });
    const before = await money(h, account.accountId);
    const result = await streamChat(h, account.apiKey, {});
    await expectNothingBilled(h, account.accountId, before);
    expect(arrivals).toEqual(['a', 'b']);
    expect(result.status, result.raw).toBe(200);
    expect(errorFrames(result).map((f) => f.error.code)).toEqual(['empty_upstream_stream']);
    expectEndsWithDone(result);
  });

  it('an upstream that dies before its first token is failed over', async () => {
    behaviours.a = { dieAfterChunks: 0 };
    const result = await streamChat(h, account.apiKey, {});
    expect(result.status).toBe(200);
    expect(arrivals).toEqual(['a', 'b']);
    expect(modelsOf(result)).toEqual(new Set(['fake-b/gpt-5-mini']));
    expect(streamedText(result)).toBe(ANSWER);
    expectEndsWithDone(result);
  });

  it('a 5xx at opening is failed over like a non-stream request', async () => {
    behaviours.a = { status: 503 };
    const result = await streamChat(h, account.apiKey, {});
    expect(result.status).toBe(200);
    expect(arrivals).toEqual(['a', 'b']);
    expect(streamedText(result)).toBe(ANSWER);
    expectEndsWithDone(result);
  });

  it('a content filter at opening → plain JSON 400 content_filter; the next route is not asked', async () => {
    behaviours.a = 'contentFilter';
    const before = await money(h, account.accountId);
    const response = await fetch(h.baseUrl + CHAT_PATH, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${account.apiKey}`,
        'content-type': 'application/json',
        'user-agent': 'integration-tests/1',
      },
      body: JSON.stringify({ model: 'gpt-5-mini', messages: MESSAGES, stream: true }),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await response.text();
    expectCompatError(
      { status: response.status, headers: response.headers, body: JSON.parse(text), text },
      400,
      'content_filter',
    );
    expect(arrivals).toEqual(['a']);
    await expectNothingBilled(h, account.accountId, before);
  });

  // SPEC 6.2, issue 24 item 7: every route failed before a first token → 200, one frame whose type/code follow
  // the upstreams' status, [DONE]; nothing billed; the exhausted chain raised its one alert (SPEC 7.3).
  const openingFailures: [string, FakeBehaviour, FakeBehaviour, string, string][] = [
    ['400 everywhere', { status: 400 }, { status: 400 }, 'invalid_request_error', 'invalid_request'],
    ['404 everywhere', { status: 404 }, { status: 404 }, 'invalid_request_error', 'model_not_found'],
    ['429 everywhere', { status: 429, retryAfterSec: 3 }, { status: 429 }, 'rate_limit_error', 'rate_limit_exceeded'],
    ['5xx everywhere', { status: 500 }, { status: 502 }, 'api_error', 'upstream_server_error'],
    ['a 401 and a 503', { status: 401 }, { status: 503 }, 'api_error', 'upstream_error'],
    ['a 400 and a broken stream', { status: 400 }, { dieAfterChunks: 0 }, 'api_error', 'upstream_error'],
  ];

  it.each(openingFailures)(
    'every upstream failing at opening (%s) → 200, one %s/%s frame, [DONE]; nothing billed',
    async (_name, a, b, type, code) => {
      Object.assign(behaviours, { a, b });
      const before = await money(h, account.accountId);
      const result = await streamChat(h, account.apiKey, {});
      expect(result.status).toBe(200);
      expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(arrivals).toEqual(['a', 'b']);
      expect(result.frames).toHaveLength(2);
      expect(JSON.parse(result.frames[0]!)).toEqual({ error: { message: expect.any(String), type, code } });
      expectEndsWithDone(result);
      expect(alertLines(h, result.headers.get('x-request-id'))).toHaveLength(1);
      await expectNothingBilled(h, account.accountId, before);
    },
  );
});

describe('stream open: the chosen upstream is final', () => {
  it('a stream that dies after one chunk → that chunk, exactly one upstream_error frame, [DONE]; nothing billed', async () => {
    behaviours.a = { dieAfterChunks: 1 };
    const before = await money(h, account.accountId);
    const result = await streamChat(h, account.apiKey, { stream_options: { include_usage: true } });
    expect(result.status).toBe(200);
    expect(arrivals).toEqual(['a']); // no mid-stream failover
    const frames = jsonFrames(result);
    expect(frames).toHaveLength(2);
    expect(frames[0]!.choices[0].delta.content).toBe(fakeChunkText(0));
    expect(frames[1]).toEqual({ error: { message: expect.any(String), type: 'api_error', code: 'upstream_error' } });
    expect(usageFrames(result)).toHaveLength(0);
    expectEndsWithDone(result);
    await expectNothingBilled(h, account.accountId, before);
  });

  it('an error chunk after the stream opened → the chunks before it, the mapped frame (never the upstream’s), [DONE]; nothing billed', async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [
        { message: 'vendor overloaded: shard 7 on fire', type: 'server_error', code: 'overloaded' },
        'api_error',
        'upstream_error',
      ],
      [{ message: 'slow down', type: 'rate_limit_error', code: 429 }, 'rate_limit_error', 'rate_limit_exceeded'],
      [{ message: 'bad tool schema', type: 'invalid_request_error' }, 'invalid_request_error', 'invalid_request'],
    ];
    for (const [error, type, code] of cases) {
      behaviours.a = { errorAfterChunks: 2, error };
      arrivals = [];
      const before = await money(h, account.accountId);
      const result = await streamChat(h, account.apiKey, { stream_options: { include_usage: true } });
      expect(result.status).toBe(200);
      expect(arrivals).toEqual(['a']);
      expect(streamedText(result)).toBe(fakeChunkText(0) + fakeChunkText(1));
      expect(errorFrames(result)).toEqual([{ error: { message: expect.any(String), type, code } }]);
      expect(result.raw).not.toContain(String(error.message)); // SPEC 6.2: nothing else of the upstream's body
      expect(usageFrames(result)).toHaveLength(0);
      expectEndsWithDone(result);
      await expectNothingBilled(h, account.accountId, before);
    }
  });

  it('a stream that stalls after one chunk past the idle limit → the chunk, one error frame, [DONE]; nothing billed', async () => {
    behaviours.a = { stallAfterChunks: 1 };
    const before = await money(h, account.accountId);
    const seenA = fakes.a.requests.length;
    const result = await streamChat(h, account.apiKey, { model: 'gpt-4o-mini' });
    expect(result.status).toBe(200);
    expect(arrivals).toEqual(['a']);
    expect(streamedText(result)).toBe(fakeChunkText(0));
    expect(errorFrames(result).map((f) => f.error.code)).toEqual(['upstream_error']);
    expectEndsWithDone(result);
    await within(fakes.a.requests[seenA]!.clientGone, 2_000, 'closing the stalled upstream');
    await expectNothingBilled(h, account.accountId, before);
  });
});

describe('billing a stream', () => {
  it('a normal stream ends with [DONE] and exactly one usage chunk (with cost) when asked, just before [DONE]', async () => {
    const result = await streamChat(h, account.apiKey, { stream_options: { include_usage: true } });
    expect(result.status).toBe(200);
    expect(streamedText(result)).toBe(ANSWER);
    const usage = usageFrames(result);
    expect(usage).toHaveLength(1);
    expect(result.frames.at(-2)).toBe(JSON.stringify(usage[0]));
    expect(usage[0]!.choices).toEqual([]);
    expect(usage[0]!.usage).toMatchObject({
      prompt_tokens: 1000,
      completion_tokens: 500,
      total_tokens: 1500,
      cost: 0.00125,
    });
    expectEndsWithDone(result);
    const after = await moneyWhenSettled(h, account.accountId, 1);
    expect(after.records).toHaveLength(1);
    expect(after.records[0]).toMatchObject({
      requestId: result.headers.get('x-request-id'),
      costMicros: COST_MICROS,
      completionTokens: 500,
    });
    expect(after.postedMicros).toBe(COST_MICROS);
    expect(after.heldMicros).toBe(0n);
  });

  it('a normal stream without include_usage carries no usage chunk, and is still billed on the upstream’s usage', async () => {
    const result = await streamChat(h, account.apiKey, {});
    expect(streamedText(result)).toBe(ANSWER);
    expect(usageFrames(result)).toHaveLength(0);
    expectEndsWithDone(result);
    // The upstream was asked for usage all the same, so the bill rests on its count.
    expect((fakes.a.requests.at(-1)!.body as Record<string, unknown>).stream_options).toEqual({ include_usage: true });
    expect((await moneyWhenSettled(h, account.accountId, 1)).postedMicros).toBe(COST_MICROS);
  });

  it('no usage from the upstream → billed from our own token count; the usage chunk carries that count and its cost', async () => {
    behaviours.a = 'noUsage';
    const result = await streamChat(h, account.apiKey, { stream_options: { include_usage: true } });
    expect(result.status).toBe(200);
    expect(streamedText(result)).toBe(ANSWER);
    expectEndsWithDone(result);
    const after = await moneyWhenSettled(h, account.accountId, 1);
    expect(after.records).toHaveLength(1);
    const record = after.records[0]!;
    expect(record.completionTokens).toBe(countTokens(ANSWER));
    expect(record.completionTokens).toBeGreaterThan(0);
    expect(record.promptTokens).toBeGreaterThan(0);
    expect(record.costMicros).toBeGreaterThan(0n);
    expect(after.postedMicros).toBe(record.costMicros);
    const usage = usageFrames(result);
    expect(usage).toHaveLength(1);
    expect(usage[0]!.usage).toMatchObject({
      prompt_tokens: record.promptTokens,
      completion_tokens: record.completionTokens,
    });
    expect(micros(usage[0]!.usage.cost)).toBe(record.costMicros);
  });

  it('no usage from the upstream and none asked for → still billed from our own count', async () => {
    behaviours.a = 'noUsage';
    const result = await streamChat(h, account.apiKey, {});
    expect(usageFrames(result)).toHaveLength(0);
    expectEndsWithDone(result);
    const after = await moneyWhenSettled(h, account.accountId, 1);
    expect(after.records).toHaveLength(1);
    expect(after.records[0]!.completionTokens).toBeGreaterThan(0);
    expect(after.records[0]!.costMicros).toBeGreaterThan(0n);
  });
});

describe('the client leaves: work done is work billed', () => {
  /** POSTs a chat that the test aborts itself; a safety timer aborts it after 10 s whatever happens. */
  function abortableChat(body: Record<string, unknown>): {
    response: Promise<Response>;
    abort: () => void;
    done: () => void;
  } {
    const controller = new AbortController();
    const safety = setTimeout(() => controller.abort(), 10_000);
    const response = fetch(h.baseUrl + CHAT_PATH, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${account.apiKey}`,
        'content-type': 'application/json',
        'user-agent': 'integration-tests/1',
      },
      body: JSON.stringify({ model: 'gpt-5-mini', messages: MESSAGES, ...body }),
      signal: controller.signal,
    });
    response.catch(() => undefined);
    return { response, abort: () => controller.abort(), done: () => clearTimeout(safety) };
  }

  /** The one usage line the left request is billed by, once the gateway finished the work. */
  const billedLine = async () => (await moneyWhenSettled(h, account.accountId, 1)).records;

  it('mid-stream: the upstream is read to its end and the usage it reports is charged', async () => {
    const client = abortableChat({ model: 'gpt-5-nano', stream: true });
    try {
      const response = await client.response;
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const { value } = await reader.read();
      expect(new TextDecoder().decode(value)).toContain('data: ');
      client.abort();
      await reader.cancel().catch(() => undefined);
      // The usage comes in the upstream's last chunk: it was read to its end, not cut when the client left.
      const records = await billedLine();
      expect(records).toHaveLength(1);
      expect(records[0]).toMatchObject({
        promptTokens: USAGE.promptTokens,
        completionTokens: USAGE.completionTokens,
        costMicros: SLOW_COST_MICROS,
      });
    } finally {
      client.done();
    }
  });

  it('before the answer of a non-stream request: the answer is awaited and charged', async () => {
    const client = abortableChat({ model: 'gpt-5-nano' });
    try {
      await within(slow.waitForRequest(slow.requests.length), 3_000, 'the request reaching the upstream');
      client.abort();
      await client.response.catch(() => undefined);
      const records = await billedLine();
      expect(records).toHaveLength(1);
      expect(records[0]!.costMicros).toBe(SLOW_COST_MICROS);
    } finally {
      client.done();
    }
  });

  it('before the first token: the silent route is failed over as for any client, and the answer charged', async () => {
    behaviours.a = 'silent';
    const linesBefore = h.logs.length;
    const client = abortableChat({ stream: true });
    try {
      await within(fakes.a.waitForRequest(fakes.a.requests.length), 3_000, 'the request reaching the upstream');
      client.abort();
      await client.response.catch(() => undefined);
      const records = await billedLine();
      expect(arrivals).toEqual(['a', 'b']);
      expect(records[0]!.costMicros).toBe(COST_MICROS);
      // A client that left is no error of the gateway's.
      expect(h.logs.slice(linesBefore).filter((line) => (line.level as number) >= 50)).toEqual([]);
    } finally {
      client.done();
    }
  });
});

/**
 * SPEC 4.2 keep-alive path: a non-stream chat with max_tokens above 4096 gets its 200 and leading whitespace
 * at once, whitespace every KEEP_ALIVE_INTERVAL_MS while the upstream is slow, then the JSON. An upstream
 * failure on that path is a 200 whose body carries `error` (and the request id); nothing is billed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeChunkText } from '../fixtures/fake-upstream.js';
import { namedFakeUpstreams } from '../setup/fake-upstreams.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import { alertLines, chat, expectNothingBilled, MESSAGES, money } from './gateway-helpers.js';

const INTERVAL_MS = 50;
const SLOW_MS = 400; // eight intervals: several whitespace bytes go out before the answer
const USAGE = { promptTokens: 1000, completionTokens: 500 };
const ANSWER = [0, 1, 2].map(fakeChunkText).join('');

const { fakes, behaviours, arrivals } = namedFakeUpstreams(['a', 'b'], { usage: USAGE });
let h: Harness;
let account: { accountId: string; apiKey: string };

beforeAll(async () => {
  const upstreams = writeUpstreamsFile({
    'gpt-5-mini': [
      { provider: 'fake-a', url: fakes.a.baseUrl, cost: { input: 0.1, output: 1 } },
      { provider: 'fake-b', url: fakes.b.baseUrl, cost: { input: 0.2, output: 2 } },
    ],
  });
  h = await startHarness({ UPSTREAMS_FILE: upstreams, KEEP_ALIVE_INTERVAL_MS: String(INTERVAL_MS) });
});

afterAll(async () => {
  await h?.close();
  removeUpstreamsFiles();
});

beforeEach(async () => {
  account = await h.newAccount(undefined, { balanceUsd: 5 });
});

/** The leading whitespace of a keep-alive body, and the JSON after it. */
function split(text: string): { padding: string; json: any } {
  const padding = /^\s*/.exec(text)![0];
  return { padding, json: JSON.parse(text.slice(padding.length)) };
}

describe('keep-alive path (non-stream, max_tokens > 4096)', () => {
  it('a slow upstream: 200, whitespace first, then the completion JSON; billed once', async () => {
    behaviours.a = { slowFirstByteMs: SLOW_MS };
    const response = await chat(h, account.apiKey, { max_tokens: 5000 });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const { padding, json } = split(response.text);
    expect(padding.length).toBeGreaterThanOrEqual(2);
    expect(padding).toMatch(/^ +$/);
    expect(json.model).toBe('gpt-5-mini');
    expect(json.choices[0].message.content).toBe(ANSWER);
    expect(json.usage).toMatchObject({ prompt_tokens: 1000, completion_tokens: 500, cost: 0.00125 });
    expect(json.error).toBeUndefined();
    expect((fakes.a.requests.at(-1)!.body as Record<string, unknown>).max_completion_tokens).toBe(5000);
    const after = await money(h, account.accountId);
    expect(after.records).toHaveLength(1);
    expect(after.records[0]!.requestId).toBe(response.headers.get('x-request-id'));
    expect(after.postedMicros).toBe(1250n);
    expect(after.heldMicros).toBe(0n);
  });

  it('an upstream 5xx on that path → 200 with {error: {code: upstream_server_error, …}, request_id}; nothing billed', async () => {
    Object.assign(behaviours, {
      a: { slowFirstByteMs: SLOW_MS / 2, then: { status: 500 } },
      b: { slowFirstByteMs: SLOW_MS / 2, then: { status: 503 } },
    });
    const before = await money(h, account.accountId);
    const response = await chat(h, account.apiKey, { max_tokens: 5000 });
    expect(response.status).toBe(200);
    const { padding, json } = split(response.text);
    expect(padding.length).toBeGreaterThanOrEqual(1);
    expect(json).toEqual({
      error: { code: 'upstream_server_error', type: 'api_error', message: expect.any(String) },
      request_id: response.headers.get('x-request-id'),
    });
    expect(json.choices).toBeUndefined();
    expect(arrivals).toEqual(['a', 'b']);
    expect(alertLines(h, json.request_id)).toHaveLength(1);
    await expectNothingBilled(h, account.accountId, before);
  });

  it('the chain is still walked on that path: slow 5xx, then slow ok → the completion', async () => {
    Object.assign(behaviours, {
      a: { slowFirstByteMs: SLOW_MS / 2, then: { status: 502 } },
      b: { slowFirstByteMs: SLOW_MS / 2 },
    });
    const response = await chat(h, account.apiKey, { max_tokens: 8000 });
    expect(response.status).toBe(200);
    const { json } = split(response.text);
    expect(json.choices[0].message.content).toBe(ANSWER);
    expect(arrivals).toEqual(['a', 'b']);
  });

  it('the native surface answers its own envelope after the whitespace', async () => {
    behaviours.a = { slowFirstByteMs: SLOW_MS };
    const response = await call(h.baseUrl, 'POST', '/v1/llm/chat/completions', {
      key: account.apiKey,
      body: { model: 'gpt-5-mini', messages: MESSAGES, max_tokens: 5000 },
    });
    expect(response.status).toBe(200);
    const { padding, json } = split(response.text);
    expect(padding.length).toBeGreaterThanOrEqual(2);
    expect(json.exception).toBe(0);
    expect(json.data.choices[0].message.content).toBe(ANSWER);
  });

  it('max_tokens of exactly 4096 is a plain JSON answer, no whitespace first', async () => {
    const response = await chat(h, account.apiKey, { max_tokens: 4096 });
    expect(response.status, response.text).toBe(200);
    expect(response.text.startsWith('{')).toBe(true);
  });
});

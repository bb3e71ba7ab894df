/**
 * Only what is priced is forwarded (src/domain/chat/forwarded-fields.ts): through the real app and a fake upstream
 * that records what it received, on SQLite and on PostgreSQL + Redis. Fields the catalog prices reach the upstream
 * as sent; fields a vendor bills beyond the catalog's text rates (`service_tier: priority`, `prediction`,
 * `web_search_options`, audio output) and fields nobody listed answer 400 `invalid_request` naming the field, on
 * every chat surface, before any hold: the upstream never sees them and the balance does not move.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectCompatError, expectNativeError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { jsonFrames, postSse } from '../setup/sse.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const MODEL = 'gpt-5-mini';
const MESSAGES = [{ role: 'user', content: 'Say hello' }];
const TOOLS = [
  {
    type: 'function',
    function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
  },
];
/** Priced fields a client may send, with values that must arrive unchanged. */
const PRICED = {
  temperature: 0.3,
  seed: 7,
  stop: ['\n\n'],
  logit_bias: { '50256': -100 },
  logprobs: true,
  top_logprobs: 2,
  tools: TOOLS,
  tool_choice: 'auto',
  parallel_tool_calls: false,
  response_format: { type: 'text' },
  reasoning_effort: 'low',
  user: 'end-user-1',
  prompt_cache_key: 'k1',
  service_tier: 'default',
  modalities: ['text'],
  store: false,
};
/** Fields the catalog does not price (or that nobody listed), each named in its 400. */
const REFUSED: [string, unknown][] = [
  ['service_tier', 'priority'],
  ['service_tier', 'flex'],
  ['prediction', { type: 'content', content: 'Hello there' }],
  ['web_search_options', { search_context_size: 'high' }],
  ['modalities', ['text', 'audio']],
  ['audio', { voice: 'alloy', format: 'wav' }],
  ['store', true],
  ['plugins', [{ id: 'web' }]],
  ['provider', { order: ['expensive'] }],
  ['constructor', 'x'],
  ['__proto__', { service_tier: 'priority' }],
];

let upstream: FakeUpstream;
let upstreamsFile: string;
beforeAll(async () => {
  upstream = await startFakeUpstream();
  upstreamsFile = writeUpstreamsFile({
    [MODEL]: [
      { provider: 'recorder', url: upstream.baseUrl, model: 'vendor/gpt-5-mini', cost: { input: 0.2, output: 1.6 } },
    ],
  });
});
afterAll(async () => {
  await upstream?.close();
  removeUpstreamsFiles();
});

describe.each(HARNESS_DATABASES)('forwarded chat fields on $name', (database) => {
  let h: Harness;
  let drop: () => Promise<void> = async () => undefined;
  let key: string;
  let accountId: string;
  beforeAll(async () => {
    const opened = await database.open();
    drop = opened.drop;
    const redis: Record<string, string> = database.name === 'PostgreSQL' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {};
    h = await startHarness({ ...opened.env, ...redis, UPSTREAMS_FILE: upstreamsFile });
    ({ apiKey: key, accountId } = await h.newAccount(undefined, { balanceUsd: 5 }));
  });
  afterAll(async () => {
    await h?.close();
    await drop();
  });

  const post = (path: string, body: unknown) => call(h.baseUrl, 'POST', path, { key, body });
  const lastSent = () => upstream.requests.at(-1)!.body as Record<string, unknown>;

  it('forwards every priced field as sent, plain and streamed', async () => {
    expect((await post('/v1/compat/chat/completions', { model: MODEL, messages: MESSAGES, ...PRICED })).status).toBe(
      200,
    );
    expect(lastSent()).toMatchObject({ ...PRICED, messages: MESSAGES, model: 'vendor/gpt-5-mini', stream: false });
    const streamed = await postSse(h.baseUrl, '/v1/compat/chat/completions', {
      key,
      body: { model: MODEL, messages: MESSAGES, stream: true, ...PRICED },
    });
    expect(streamed.status).toBe(200);
    expect(jsonFrames(streamed.frames).length).toBeGreaterThan(0);
    expect(lastSent()).toMatchObject({ ...PRICED, stream: true, stream_options: { include_usage: true } });
  });

  it('a priced-elsewhere or unlisted field sent as null is one not set: answered, and not forwarded', async () => {
    const nulls = { service_tier: null, prediction: null, web_search_options: null, audio: null, metadata: null };
    expect((await post('/v1/compat/chat/completions', { model: MODEL, messages: MESSAGES, ...nulls })).status).toBe(
      200,
    );
    for (const field of Object.keys(nulls)) expect(lastSent()).not.toHaveProperty(field);
  });

  it.each(REFUSED)(
    'refuses %s = %j with 400 naming it; the upstream never sees it and nothing is held',
    async (field, value) => {
      const before = upstream.requests.length;
      const opening = await h.deps.ledger.getBalance(accountId);
      const body = { model: MODEL, messages: MESSAGES, [field]: value };
      const compat = await post('/v1/compat/chat/completions', body);
      expectCompatError(compat, 400, 'invalid_request');
      expect(compat.body.error.param).toBe(field);
      const native = await post('/v1/llm/chat/completions', body);
      expectNativeError(native, 400, 'invalid_request');
      expect(native.body.data.error).toContain(field);
      expectNativeError(await post('/v1/llm/chat/jobs', body), 400, 'invalid_request');
      const streamed = await post('/v1/compat/chat/completions', { ...body, stream: true });
      expectCompatError(streamed, 400, 'invalid_request');
      expect(upstream.requests.length).toBe(before);
      expect(await h.deps.ledger.getBalance(accountId)).toEqual(opening);
    },
  );

  it('Responses reads only its listed fields: a premium tier is refused by name and never sent', async () => {
    const before = upstream.requests.length;
    const refused = await post('/v1/responses', { model: MODEL, input: 'hi', service_tier: 'priority' });
    expectCompatError(refused, 400, 'invalid_request');
    expect(refused.body.error.message).toContain('service_tier');
    expect(upstream.requests.length).toBe(before);
    expect((await post('/v1/responses', { model: MODEL, input: 'hi', temperature: 0.2, user: 'u-1' })).status).toBe(
      200,
    );
    expect(lastSent()).toMatchObject({ temperature: 0.2, user: 'u-1', model: 'vendor/gpt-5-mini' });
    expect(Object.keys(lastSent()).sort()).toEqual([
      'max_completion_tokens',
      'messages',
      'model',
      'stream',
      'temperature',
      'user',
    ]);
  });
});

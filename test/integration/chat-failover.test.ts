/**
 * SPEC 4.2 routing, 7.2 codes and 7.3 alerts end to end: non-stream chat through the real gateway and a
 * cost-sorted chain of local fake upstreams (test/fixtures/fake-upstream.ts) that fail on purpose. A failed
 * request costs nothing (SPEC 4.1.3); an exhausted chain raises exactly one operator alert per request.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/domain/text/token-counting.js';
import {
  closedPortUrl,
  type FakeBehaviour,
  type FakeUpstream,
  fakeChunkText,
  startFakeUpstream,
} from '../fixtures/fake-upstream.js';
import { expectCompatError } from '../setup/envelopes.js';
import { type Harness, type JsonResponse, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, type UpstreamRouteSpec, writeUpstreamsFile } from '../setup/upstreams.js';
import {
  alertLines,
  chat,
  exhaustedMetric,
  expectNothingBilled,
  MESSAGES,
  micros,
  money,
  within,
} from './gateway-helpers.js';

/** What every fake reports; gpt-5-mini retail is $0.25 in / $2 out per Mtok → 250 + 1000 micro-USD. */
const USAGE = { promptTokens: 1000, completionTokens: 500 };
const COST_MICROS = 1250n;
const BALANCE_USD = 5;
const ANSWER = [0, 1, 2].map(fakeChunkText).join('');

afterAll(() => removeUpstreamsFiles());

/** A harness whose upstreams file is written once the fakes it names are up. */
function gateway(
  routes: () => Promise<Record<string, UpstreamRouteSpec[]>>,
  env: Record<string, string> = {},
): { h: Harness } {
  const ctx = {} as { h: Harness };
  beforeAll(async () => {
    ctx.h = await startHarness({ UPSTREAMS_FILE: writeUpstreamsFile(await routes()), ...env });
  });
  afterAll(async () => ctx.h?.close());
  return ctx;
}

describe('a chain of three fake upstreams for gpt-5-mini', () => {
  const names = ['a', 'b', 'c'] as const;
  type Name = (typeof names)[number];
  const fakes = {} as Record<Name, FakeUpstream>;
  const behaviours: Record<Name, FakeBehaviour> = { a: 'ok', b: 'ok', c: 'ok' };
  /** Which fake received each request, in arrival order (all three share it). */
  let arrivals: Name[] = [];

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
  });
  afterAll(async () => {
    for (const name of names) await fakes[name]?.close();
  });

  // Written out of cost order on purpose: the chain must be a (cheapest), b, c whatever the file's order.
  const ctx = gateway(async () => ({
    'gpt-5-mini': [
      { provider: 'fake-c', url: fakes.c.baseUrl, cost: { input: 0.5, output: 3 } },
      { provider: 'fake-a', url: fakes.a.baseUrl, cost: { input: 0.1, output: 1 } },
      { provider: 'fake-b', url: fakes.b.baseUrl, cost: { input: 0.2, output: 2 } },
    ],
  }));

  let account: { accountId: string; apiKey: string };
  beforeEach(async () => {
    arrivals = [];
    Object.assign(behaviours, { a: 'ok', b: 'ok', c: 'ok' });
    account = await ctx.h.newAccount(undefined, { balanceUsd: BALANCE_USD });
  });

  /** The chain ran out: the SPEC 7.2 code, one alert line, the metric up by one, nothing billed. */
  async function expectExhausted(
    send: () => Promise<JsonResponse>,
    status: number,
    code: string,
  ): Promise<JsonResponse> {
    const { h } = ctx;
    const before = await money(h, account.accountId);
    const metricBefore = await exhaustedMetric(h, 'gpt-5-mini', code);
    const response = await send();
    expectCompatError(response, status, code);
    expect(arrivals).toEqual(['a', 'b', 'c']);
    const alerts = alertLines(h, response.body.request_id);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ level: 50, slug: 'gpt-5-mini', code });
    expect((alerts[0]!.attempts as { provider: string }[]).map((a) => a.provider)).toEqual([
      'fake-a',
      'fake-b',
      'fake-c',
    ]);
    expect(await exhaustedMetric(h, 'gpt-5-mini', code)).toBe(metricBefore + 1);
    await expectNothingBilled(h, account.accountId, before);
    return response;
  }

  it('tries the cheapest first; 5xx then ok → 200 from the second, billed once', async () => {
    const { h } = ctx;
    behaviours.a = { status: 503 };
    const response = await chat(h, account.apiKey, {});
    expect(response.status, response.text).toBe(200);
    expect(arrivals).toEqual(['a', 'b']);
    expect(response.body.model).toBe('gpt-5-mini');
    expect(response.body.choices[0].message.content).toBe(ANSWER);
    expect(response.body.usage).toMatchObject({
      prompt_tokens: 1000,
      completion_tokens: 500,
      total_tokens: 1500,
      cost: 0.00125,
    });

    const after = await money(h, account.accountId);
    expect(after.records).toHaveLength(1);
    expect(after.records[0]).toMatchObject({
      requestId: response.headers.get('x-request-id'),
      costMicros: COST_MICROS,
      promptTokens: 1000,
      completionTokens: 500,
    });
    expect(after.records[0]!.metadata).toMatchObject({ provider: 'fake-b' });
    expect(after.postedMicros).toBe(COST_MICROS);
    expect(after.heldMicros).toBe(0n);
    expect(after.availableMicros).toBe(BigInt(BALANCE_USD * 1e6) - COST_MICROS);
    expect(alertLines(h, response.headers.get('x-request-id'))).toHaveLength(0);
  });

  it('429 everywhere → 429 upstream_rate_limit with the longest Retry-After any upstream asked for', async () => {
    Object.assign(behaviours, {
      a: { status: 429, retryAfterSec: 2 },
      b: { status: 429, retryAfterSec: 7 },
      c: { status: 429 },
    });
    const response = await expectExhausted(() => chat(ctx.h, account.apiKey, {}), 429, 'upstream_rate_limit');
    expect(response.headers.get('retry-after')).toBe('7');
  });

  it('429 everywhere without any hint still carries Retry-After (SPEC 7.1)', async () => {
    Object.assign(behaviours, { a: { status: 429 }, b: { status: 429 }, c: { status: 429 } });
    const response = await expectExhausted(() => chat(ctx.h, account.apiKey, {}), 429, 'upstream_rate_limit');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('4xx everywhere → 502 upstream_bad_response', async () => {
    Object.assign(behaviours, { a: { status: 400 }, b: { status: 404 }, c: { status: 422 } });
    await expectExhausted(() => chat(ctx.h, account.apiKey, {}), 502, 'upstream_bad_response');
  });

  it('5xx everywhere → 502 upstream_server_error; the vendor’s error text is not forwarded', async () => {
    const secret = 'internal vendor detail 7f3a';
    Object.assign(behaviours, {
      a: { status: 500, body: { error: { message: secret } } },
      b: { status: 502 },
      c: { status: 503 },
    });
    const response = await expectExhausted(() => chat(ctx.h, account.apiKey, {}), 502, 'upstream_server_error');
    expect(response.text).not.toContain(secret);
  });

  it('content filter on the first → 400 content_filter; the others are not asked, no alert, nothing billed', async () => {
    const { h } = ctx;
    behaviours.a = 'contentFilter';
    const before = await money(h, account.accountId);
    const response = await chat(h, account.apiKey, {});
    expectCompatError(response, 400, 'content_filter');
    expect(response.body.error.type).toBe('content_filter');
    expect(arrivals).toEqual(['a']);
    expect(alertLines(h, response.body.request_id)).toHaveLength(0);
    await expectNothingBilled(h, account.accountId, before);
  });

  it('forwards tools, tool_choice, seed and response_format unchanged, with each upstream’s own model id', async () => {
    const { h } = ctx;
    behaviours.a = { status: 500 };
    const extra = {
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            description: 'Weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ],
      tool_choice: 'auto',
      seed: 42,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'greeting', schema: { type: 'object', properties: { text: { type: 'string' } } } },
      },
      temperature: 0.3,
      logprobs: true,
      user: 'end-user-17',
    };
    const aSeen = fakes.a.requests.length;
    const bSeen = fakes.b.requests.length;
    const response = await chat(h, account.apiKey, extra);
    expect(response.status, response.text).toBe(200);
    const toA = fakes.a.requests[aSeen]!;
    const toB = fakes.b.requests[bSeen]!;
    expect(toA.path).toBe('/v1/chat/completions');
    // Plus the output cap every request carries (the model's, as the client sent none).
    const cap = { max_completion_tokens: h.deps.catalog.find('gpt-5-mini')!.capabilities.max_output_tokens };
    expect(toA.body).toEqual({ ...extra, messages: MESSAGES, model: 'fake-a/gpt-5-mini', stream: false, ...cap });
    expect(toB.body).toEqual({ ...extra, messages: MESSAGES, model: 'fake-b/gpt-5-mini', stream: false, ...cap });
    // Our key never reaches a vendor.
    expect(toB.headers.authorization).toBeUndefined();
  });

  it('no usage from the upstream → billed from our own count of the completion (DESIGN 8)', async () => {
    const { h } = ctx;
    behaviours.a = 'noUsage';
    const response = await chat(h, account.apiKey, {});
    expect(response.status, response.text).toBe(200);
    expect(response.body.usage.completion_tokens).toBe(countTokens(ANSWER));
    expect(response.body.usage.cost).toBeGreaterThan(0);
    const after = await money(h, account.accountId);
    expect(after.records).toHaveLength(1);
    expect(after.records[0]).toMatchObject({
      completionTokens: countTokens(ANSWER),
      costMicros: micros(response.body.usage.cost),
    });
    expect(after.postedMicros).toBe(micros(response.body.usage.cost));
  });

  it('one alert line per exhausted request: two requests, two lines, the metric up by two', async () => {
    const { h } = ctx;
    Object.assign(behaviours, { a: { status: 500 }, b: { status: 500 }, c: { status: 500 } });
    const metricBefore = await exhaustedMetric(h, 'gpt-5-mini', 'upstream_server_error');
    const linesBefore = h.logs.filter((l) => l.event === 'chain_exhausted').length;
    const [first, second] = await Promise.all([chat(h, account.apiKey, {}), chat(h, account.apiKey, {})]);
    for (const response of [first!, second!]) {
      expectCompatError(response, 502, 'upstream_server_error');
      expect(alertLines(h, response.body.request_id)).toHaveLength(1);
    }
    expect(h.logs.filter((l) => l.event === 'chain_exhausted').length).toBe(linesBefore + 2);
    expect(await exhaustedMetric(h, 'gpt-5-mini', 'upstream_server_error')).toBe(metricBefore + 2);
  });
});

describe('connect refused', () => {
  let ok: FakeUpstream;
  let refused: string[];
  beforeAll(async () => {
    ok = await startFakeUpstream({ usage: USAGE });
    refused = [await closedPortUrl(), await closedPortUrl()];
  });
  afterAll(async () => ok?.close());
  const ctx = gateway(async () => ({
    'gpt-5-mini': [
      { provider: 'refused', url: refused[0]!, cost: { input: 0.1, output: 1 } },
      { provider: 'fake-ok', url: ok.baseUrl, cost: { input: 0.2, output: 2 } },
    ],
    'gpt-4o-mini': [
      { provider: 'refused', url: refused[0]!, cost: { input: 0.1, output: 0.3 } },
      { provider: 'refused-too', url: refused[1]!, cost: { input: 0.1, output: 0.4 } },
    ],
  }));

  it('connect refused then ok → 200 from the second, billed once', async () => {
    const { h } = ctx;
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: BALANCE_USD });
    const seen = ok.requests.length;
    const response = await chat(h, apiKey, {});
    expect(response.status, response.text).toBe(200);
    expect(response.body.usage.cost).toBe(0.00125);
    expect(ok.requests.length).toBe(seen + 1);
    const after = await money(h, accountId);
    expect(after.records).toHaveLength(1);
    expect(after.postedMicros).toBe(COST_MICROS);
  });

  it('every upstream refuses the connection → 503 provider_unavailable, one alert, nothing billed', async () => {
    const { h } = ctx;
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: BALANCE_USD });
    const before = await money(h, accountId);
    const metricBefore = await exhaustedMetric(h, 'gpt-4o-mini', 'provider_unavailable');
    const response = await chat(h, apiKey, { model: 'gpt-4o-mini' });
    expectCompatError(response, 503, 'provider_unavailable');
    const alerts = alertLines(h, response.body.request_id);
    expect(alerts).toHaveLength(1);
    expect((alerts[0]!.attempts as { kind: string }[]).map((a) => a.kind)).toEqual(['connect', 'connect']);
    expect(await exhaustedMetric(h, 'gpt-4o-mini', 'provider_unavailable')).toBe(metricBefore + 1);
    await expectNothingBilled(h, accountId, before);
  });
});

describe('time budget (provider budget_ms)', () => {
  let silentA: FakeUpstream;
  let silentB: FakeUpstream;
  let ok: FakeUpstream;
  beforeAll(async () => {
    silentA = await startFakeUpstream({ behaviour: 'silent' });
    silentB = await startFakeUpstream({ behaviour: 'silent' });
    ok = await startFakeUpstream({ usage: USAGE });
  });
  afterAll(async () => {
    await Promise.all([silentA?.close(), silentB?.close(), ok?.close()]);
  });
  const ctx = gateway(async () => ({
    'gpt-5-mini': [
      { provider: 'silent-a', url: silentA.baseUrl, budgetMs: 300, cost: { input: 0.1, output: 1 } },
      { provider: 'silent-b', url: silentB.baseUrl, budgetMs: 300, cost: { input: 0.2, output: 2 } },
    ],
    'gpt-4o-mini': [
      { provider: 'silent-a', url: silentA.baseUrl, budgetMs: 300, cost: { input: 0.1, output: 0.3 } },
      { provider: 'fake-ok', url: ok.baseUrl, cost: { input: 0.1, output: 0.4 } },
    ],
  }));

  it('every upstream silent past its budget → 504 upstream_timeout; the abandoned calls are closed; nothing billed', async () => {
    const { h } = ctx;
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: BALANCE_USD });
    const before = await money(h, accountId);
    const seenA = silentA.requests.length;
    const seenB = silentB.requests.length;
    const response = await chat(h, apiKey, {});
    expectCompatError(response, 504, 'upstream_timeout');
    expect(alertLines(h, response.body.request_id)).toHaveLength(1);
    expect(await exhaustedMetric(h, 'gpt-5-mini', 'upstream_timeout')).toBe(1);
    // The gateway hung up on both silent upstreams instead of leaving the sockets open.
    await within(silentA.requests[seenA]!.clientGone, 2_000, 'closing the call to silent-a');
    await within(silentB.requests[seenB]!.clientGone, 2_000, 'closing the call to silent-b');
    await expectNothingBilled(h, accountId, before);
  });

  it('a timeout is transient: silent past its budget, then ok → 200 from the second', async () => {
    const { h } = ctx;
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: BALANCE_USD });
    const response = await chat(h, apiKey, { model: 'gpt-4o-mini' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.choices[0].message.content).toBe(ANSWER);
  });
});

describe('upstream credentials (api_key_env)', () => {
  const UNSET = 'CGW_IT_FAILOVER_UNSET_KEY';
  const SET = 'CGW_IT_FAILOVER_SET_KEY';
  let fake: FakeUpstream;
  let keyed: FakeUpstream;
  beforeAll(async () => {
    delete process.env[UNSET];
    process.env[SET] = 'sk-vendor-test';
    fake = await startFakeUpstream({ usage: USAGE });
    keyed = await startFakeUpstream({ usage: USAGE });
  });
  afterAll(async () => {
    delete process.env[SET];
    await Promise.all([fake?.close(), keyed?.close()]);
  });
  const ctx = gateway(async () => ({
    'gpt-5-mini': [{ provider: 'no-key', url: fake.baseUrl, apiKeyEnv: UNSET, cost: { input: 0.1, output: 1 } }],
    'gpt-4o-mini': [
      { provider: 'no-key', url: fake.baseUrl, apiKeyEnv: UNSET, cost: { input: 0.1, output: 0.1 } },
      { provider: 'keyed', url: keyed.baseUrl, apiKeyEnv: SET, cost: { input: 0.1, output: 0.5 } },
    ],
  }));

  it('the operator is told at start which variable is missing', () => {
    expect(ctx.h.logs.some((line) => line.provider === 'no-key' && line.env === UNSET)).toBe(true);
  });

  it('a slug routed only to a provider whose key is unset → 503 gateway_misconfigured; nothing sent, nothing billed', async () => {
    const { h } = ctx;
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: BALANCE_USD });
    const before = await money(h, accountId);
    const response = await chat(h, apiKey, {});
    expectCompatError(response, 503, 'gateway_misconfigured');
    expect(fake.requests).toHaveLength(0);
    expect(alertLines(h, response.body.request_id)).toHaveLength(0);
    await expectNothingBilled(h, accountId, before);
  });

  it('a provider without its key is skipped when another route has one; the key goes out as a Bearer token', async () => {
    const { h } = ctx;
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: BALANCE_USD });
    const response = await chat(h, apiKey, { model: 'gpt-4o-mini' });
    expect(response.status, response.text).toBe(200);
    expect(fake.requests).toHaveLength(0);
    expect(keyed.requests.at(-1)!.headers.authorization).toBe('Bearer sk-vendor-test');
  });
});

import { pino } from 'pino';
import { Registry } from 'prom-client';
import { describe, expect, it, vi } from 'vitest';
import { UpstreamError, type UpstreamFailure } from '../../src/adapters/upstream/index.js';
import { type AlertLogger, createChainAlert } from '../../src/domain/routing/alerts.js';
import type { Route } from '../../src/domain/routing/route-table.js';
import { type ExhaustionInfo, runChain } from '../../src/domain/routing/run-chain.js';
import { ApiError } from '../../src/errors/api-error.js';
import { stubRoute as route } from '../setup/routes.js';

const CHAIN = [route('a'), route('b'), route('c')];
const fail = (failure: UpstreamFailure) => Promise.reject(new UpstreamError(failure));
const http = (status: number, retryAfterSec?: number): UpstreamFailure => ({
  kind: 'http',
  status,
  message: `HTTP ${status}`,
  ...(retryAfterSec === undefined ? {} : { retryAfterSec }),
});

/** An attempt that answers with the route's name, or fails as scripted for that provider. */
function scripted(failures: Record<string, UpstreamFailure | Error>) {
  const tried: string[] = [];
  const attempt = (r: Route): Promise<string> => {
    tried.push(r.providerName);
    const outcome = failures[r.providerName];
    if (outcome === undefined) return Promise.resolve(`answer from ${r.providerName}`);
    return outcome instanceof Error ? Promise.reject(outcome) : fail(outcome);
  };
  return { tried, attempt };
}

function hooks(slug = 'gpt-x') {
  const onExhausted = vi.fn<(info: ExhaustionInfo) => void>();
  return { slug, requestId: 'req_1', deadlineAtMs: Number.MAX_SAFE_INTEGER, onExhausted };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.unreachable('expected a rejection'),
    (err: unknown) => err,
  );
}

describe('runChain (SPEC 4.2 fallback chain)', () => {
  it('answers from the first route when it succeeds, trying nothing else', async () => {
    const { tried, attempt } = scripted({});
    const h = hooks();
    const result = await runChain(CHAIN, attempt, h);
    expect(result).toMatchObject({ value: 'answer from a', failures: [] });
    expect(result.route.providerName).toBe('a');
    expect(tried).toEqual(['a']);
    expect(h.onExhausted).not.toHaveBeenCalled();
  });

  it('tries no route once the request’s deadline has passed: 504 upstream_timeout, one alert (SPEC 8)', async () => {
    let clock = 0;
    const { tried, attempt } = scripted({ a: http(503) });
    const h = { ...hooks(), deadlineAtMs: Date.now() + 60_000 };
    const slowFirst = async (r: Route) => {
      clock += 1;
      if (clock === 1) h.deadlineAtMs = Date.now() - 1; // the first attempt used up the whole deadline
      return attempt(r);
    };
    const err = await rejection(runChain(CHAIN, slowFirst, h));
    expect(err).toMatchObject({ code: 'upstream_timeout', status: 504 });
    expect(tried).toEqual(['a']);
    expect(h.onExhausted).toHaveBeenCalledTimes(1);
    expect(h.onExhausted.mock.calls[0]?.[0]).toMatchObject({ code: 'upstream_timeout', failures: [{ provider: 'a' }] });
  });

  it('walks the chain top to bottom on transient failures and reports them', async () => {
    const { tried, attempt } = scripted({ a: http(503), b: { kind: 'timeout', message: 'slow' } });
    const result = await runChain(CHAIN, attempt, hooks());
    expect(tried).toEqual(['a', 'b', 'c']);
    expect(result.value).toBe('answer from c');
    expect(result.failures.map((f) => [f.provider, f.failure.kind])).toEqual([
      ['a', 'http'],
      ['b', 'timeout'],
    ]);
  });

  it('rethrows aborted at once: the client left, nothing is failed over or alerted', async () => {
    const aborted = new UpstreamError({ kind: 'aborted', message: 'client closed' });
    const { tried, attempt } = scripted({ a: http(500), b: aborted });
    const h = hooks();
    expect(await rejection(runChain(CHAIN, attempt, h))).toBe(aborted);
    expect(tried).toEqual(['a', 'b']);
    expect(h.onExhausted).not.toHaveBeenCalled();
  });

  it('stops at a content filter (SPEC 7.5: not re-routed), without an operator alert', async () => {
    const { tried, attempt } = scripted({ a: { kind: 'http', status: 400, message: 'flagged', contentFilter: true } });
    const h = hooks();
    const err = await rejection(runChain(CHAIN, attempt, h));
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 'content_filter', status: 400, meta: { slug: 'gpt-x', attempts: 1 } });
    expect(tried).toEqual(['a']);
    expect(h.onExhausted).not.toHaveBeenCalled();
  });

  it('lets a non-upstream exception (a bug) propagate unchanged, without failing over', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    const { tried, attempt } = scripted({ a: bug });
    expect(await rejection(runChain(CHAIN, attempt, hooks()))).toBe(bug);
    expect(tried).toEqual(['a']);
  });

  it('on exhaustion calls onExhausted exactly once, then throws the classified ApiError', async () => {
    const { attempt } = scripted({ a: http(500), b: { kind: 'connect', message: 'refused' }, c: http(502) });
    const h = hooks();
    const err = await rejection(runChain(CHAIN, attempt, h));
    expect(err).toMatchObject({
      code: 'upstream_server_error',
      status: 502,
      meta: { slug: 'gpt-x', attempts: 3 },
      headers: {},
    });
    expect(h.onExhausted).toHaveBeenCalledTimes(1);
    expect(h.onExhausted.mock.calls[0]?.[0]).toMatchObject({
      slug: 'gpt-x',
      requestId: 'req_1',
      code: 'upstream_server_error',
      failures: [{ provider: 'a' }, { provider: 'b' }, { provider: 'c' }],
    });
  });

  it('every upstream 429: upstream_rate_limit with Retry-After = the longest wait asked', async () => {
    const { attempt } = scripted({ a: http(429, 2), b: http(429, 7.2), c: http(429) });
    const err = await rejection(runChain(CHAIN, attempt, hooks()));
    expect(err).toMatchObject({ code: 'upstream_rate_limit', status: 429, headers: { 'Retry-After': '8' } });
  });

  it('every upstream 429 without a hint: Retry-After is still sent (SPEC 7.1)', async () => {
    const { attempt } = scripted({ a: http(429), b: http(429), c: http(429) });
    const err = await rejection(runChain(CHAIN, attempt, hooks()));
    expect(err).toMatchObject({ headers: { 'Retry-After': '1' } });
  });

  it('leaves slug out of meta when the caller gave none', async () => {
    const { attempt } = scripted({ a: { kind: 'timeout', message: 'slow' } });
    const err = await rejection(
      runChain([route('a')], attempt, { deadlineAtMs: Number.MAX_SAFE_INTEGER, onExhausted: () => undefined }),
    );
    expect(err).toMatchObject({ code: 'upstream_timeout', meta: { attempts: 1 } });
    expect((err as ApiError).meta).not.toHaveProperty('slug');
  });

  it('refuses an empty chain (RouteTable never returns one)', async () => {
    await expect(runChain([], () => Promise.resolve(1), hooks())).rejects.toThrow(/empty chain/);
  });
});

describe('createChainAlert (SPEC 7.3: one operator alert per request)', () => {
  function alert() {
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const logger: AlertLogger = { error: (obj, msg) => lines.push({ obj, msg }) };
    const registry = new Registry();
    return { lines, registry, onExhausted: createChainAlert(logger, registry) };
  }

  it('one exhausted request → one log line and one counter increment', async () => {
    const { lines, registry, onExhausted } = alert();
    const { attempt } = scripted({ a: http(503), b: http(429), c: { kind: 'connect', message: 'refused' } });
    await rejection(
      runChain(CHAIN, attempt, {
        slug: 'gpt-x',
        requestId: 'req_42',
        deadlineAtMs: Number.MAX_SAFE_INTEGER,
        onExhausted,
      }),
    );
    expect(lines).toHaveLength(1);
    expect(lines[0]?.obj).toEqual({
      event: 'chain_exhausted',
      requestId: 'req_42',
      slug: 'gpt-x',
      code: 'upstream_server_error',
      attempts: [
        { provider: 'a', kind: 'http', status: 503, message: 'HTTP 503' },
        { provider: 'b', kind: 'http', status: 429, message: 'HTTP 429' },
        { provider: 'c', kind: 'connect', message: 'refused' },
      ],
    });
    const metric = await registry.getSingleMetricAsString('gateway_chain_exhausted_total');
    expect(metric).toContain('gateway_chain_exhausted_total{model="gpt-x",code="upstream_server_error"} 1');
  });

  it('no alert when a later route answers', async () => {
    const { lines, onExhausted } = alert();
    const { attempt } = scripted({ a: http(503) });
    await runChain(CHAIN, attempt, { slug: 'gpt-x', deadlineAtMs: Number.MAX_SAFE_INTEGER, onExhausted });
    expect(lines).toHaveLength(0);
  });

  it('shares one counter when built twice on the same registry, and accepts a pino logger', async () => {
    const registry = new Registry();
    const silent = pino({ level: 'silent' });
    const first = createChainAlert(silent, registry);
    const second = createChainAlert(silent, registry);
    const info: ExhaustionInfo = { slug: 'm', requestId: undefined, failures: [], code: 'upstream_timeout' };
    first(info);
    second(info);
    expect(await registry.getSingleMetricAsString('gateway_chain_exhausted_total')).toContain(
      '{model="m",code="upstream_timeout"} 2',
    );
  });
});

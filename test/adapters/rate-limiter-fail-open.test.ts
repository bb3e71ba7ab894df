/**
 * FailOpenRateLimiter (src/adapters/rate-limiter/fail-open.ts): Redis down → each process answers from its
 * own window, and says so in the log at most once per 10 s; attempt windows (`hit`) fail closed instead. Stub primaries for each failure shape, then a real
 * ioredis client pointed at a closed port. No wall-clock assertions (DESIGN 5): "answered quickly" is shown
 * by answers arriving although the timeout is far longer than the test's own time limit, or by the timeout
 * being the only thing that can end the wait.
 */

import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { FailOpenRateLimiter, type WarnLogger } from '../../src/adapters/rate-limiter/fail-open.js';
import type {
  AttemptDecision,
  AttemptRequest,
  RateLimitDecision,
  RateLimiter,
  RateLimitRequest,
} from '../../src/adapters/rate-limiter/index.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limiter/memory.js';
import { RedisRateLimiter } from '../../src/adapters/rate-limiter/redis.js';
import { isRedisReady } from '../../src/adapters/redis/connect.js';

const T0 = 1_750_000_000_000;
const request = (nowMs = T0): RateLimitRequest => ({
  keyId: 'key_a',
  accountId: 'acc_a',
  keyLimit: 2,
  accountLimit: 10,
  nowMs,
});

/** What the stub primary answers: a limit no real request uses, so its answers are recognisable. */
const PRIMARY_ANSWER: RateLimitDecision = {
  allowed: true,
  key: { limit: 999, remaining: 998, resetMs: 1 },
  account: { limit: 999, remaining: 998, resetMs: 1 },
};

const attempt = (nowMs = T0): AttemptRequest => ({
  windows: [{ bucket: 'signin:email:x', limit: 2, windowMs: 60_000 }],
  nowMs,
});

function stubPrimary(
  check: () => Promise<RateLimitDecision>,
  hit: () => Promise<AttemptDecision> = () => Promise.reject(new Error('no attempt answer stubbed')),
) {
  const primary = {
    calls: 0,
    closed: false,
    check: async () => (primary.calls++, check()),
    hit: async () => (primary.calls++, hit()),
    close: async () => void (primary.closed = true),
  };
  return primary satisfies RateLimiter;
}

function recordingLogger() {
  const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = [];
  const logger: WarnLogger = { warn: (obj, msg) => void warnings.push({ obj: obj as Record<string, unknown>, msg }) };
  return { logger, warnings };
}

function setup(
  primary: RateLimiter,
  options: { isPrimaryReady?: () => boolean; timeoutMs?: number; attemptTimeoutMs?: number } = {},
) {
  const { logger, warnings } = recordingLogger();
  const clock = { nowMs: 0 };
  const limiter = new FailOpenRateLimiter({
    primary,
    fallback: new MemoryRateLimiter(),
    logger,
    clock: () => clock.nowMs,
    ...options,
  });
  return { limiter, warnings, clock };
}

const hanging = () => new Promise<RateLimitDecision>(() => {});

describe('FailOpenRateLimiter with stub primaries', () => {
  it('uses the primary when it is healthy, and logs nothing', async () => {
    const primary = stubPrimary(async () => PRIMARY_ANSWER);
    const { limiter, warnings } = setup(primary);
    expect(await limiter.check(request())).toBe(PRIMARY_ANSWER);
    expect(primary.calls).toBe(1);
    expect(warnings).toEqual([]);
  });

  it('answers from the local window when the primary throws, enforcing the limit locally', async () => {
    const failure = new Error('ECONNRESET');
    const { limiter, warnings } = setup(stubPrimary(async () => Promise.reject(failure)));
    const decisions = [
      await limiter.check(request()),
      await limiter.check(request(T0 + 1)),
      await limiter.check(request(T0 + 2)),
    ];
    expect(decisions.map((decision) => decision.allowed)).toEqual([true, true, false]);
    expect(decisions[2]).toMatchObject({ rejectedBy: 'key', retryAfterMs: 59_998 });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_error', err: failure, fallbacks: 1 });
    expect(warnings[0]?.msg).toMatch(/local window/);
  });

  it('treats a primary that throws synchronously like one that rejects', async () => {
    const primary: RateLimiter = {
      check: () => {
        throw new Error('client is closed');
      },
      hit: () => {
        throw new Error('client is closed');
      },
      close: async () => {},
    };
    const { limiter, warnings } = setup(primary);
    expect(await limiter.check(request())).toMatchObject({ allowed: true, key: { limit: 2, remaining: 1 } });
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_error' });
  });

  it('answers locally when the primary does not answer within timeoutMs', async () => {
    const { limiter, warnings } = setup(stubPrimary(hanging), { timeoutMs: 5 });
    expect(await limiter.check(request())).toMatchObject({ allowed: true, key: { limit: 2, remaining: 1 } });
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_timeout', timeoutMs: 5 });
  });

  it('does not call a primary that is not ready', async () => {
    const primary = stubPrimary(async () => PRIMARY_ANSWER);
    const { limiter, warnings } = setup(primary, { isPrimaryReady: () => false });
    expect(await limiter.check(request())).toMatchObject({ allowed: true, key: { limit: 2, remaining: 1 } });
    expect(primary.calls).toBe(0);
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_not_ready' });
    expect(warnings[0]?.obj).not.toHaveProperty('err');
  });

  it('warns at most once per 10 s, then reports how many requests fell back meanwhile', async () => {
    const { limiter, warnings, clock } = setup(stubPrimary(async () => Promise.reject(new Error('down'))));
    for (let i = 0; i < 5; i += 1) await limiter.check(request(T0 + i));
    clock.nowMs = 9_999;
    await limiter.check(request(T0 + 5));
    expect(warnings).toHaveLength(1);
    clock.nowMs = 10_000;
    await limiter.check(request(T0 + 6));
    expect(warnings.map((warning) => warning.obj.fallbacks)).toEqual([1, 6]);
  });

  it('goes back to the primary as soon as it is ready again', async () => {
    let ready = false;
    const primary = stubPrimary(async () => PRIMARY_ANSWER);
    const { limiter } = setup(primary, { isPrimaryReady: () => ready });
    expect(await limiter.check(request())).not.toBe(PRIMARY_ANSWER);
    ready = true;
    expect(await limiter.check(request())).toBe(PRIMARY_ANSWER);
  });

  it('passes an invalid request through as the programmer error it is, without blaming the primary', async () => {
    const { limiter, warnings } = setup(new MemoryRateLimiter());
    await expect(limiter.check({ ...request(), keyLimit: -1 })).rejects.toThrow(RangeError);
    expect(warnings).toEqual([]);
  });

  it('closes both limiters', async () => {
    const primary = stubPrimary(async () => PRIMARY_ANSWER);
    await setup(primary).limiter.close();
    expect(primary.closed).toBe(true);
  });
});

describe('FailOpenRateLimiter attempt windows fail closed', () => {
  const ATTEMPT_ANSWER: AttemptDecision = { allowed: true, remaining: 998 };
  const unanswered = () => Promise.reject(new Error('no request answer stubbed'));

  it('uses the primary when it is healthy', async () => {
    const { limiter, warnings } = setup(stubPrimary(unanswered, async () => ATTEMPT_ANSWER));
    expect(await limiter.hit(attempt())).toBe(ATTEMPT_ANSWER);
    expect(warnings).toEqual([]);
  });

  it('refuses instead of counting locally when the primary throws, and says so in the log', async () => {
    const failure = new Error('ECONNRESET');
    const { limiter, warnings } = setup(stubPrimary(unanswered, () => Promise.reject(failure)));
    // A local fallback would admit the first two of these: every one must fail instead.
    for (let i = 0; i < 3; i += 1) await expect(limiter.hit(attempt(T0 + i))).rejects.toBe(failure);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_error', err: failure, fallbacks: 1 });
    expect(warnings[0]?.msg).toMatch(/refusing sign-in/);
  });

  it('refuses without calling a primary that is not ready', async () => {
    const primary = stubPrimary(unanswered, async () => ATTEMPT_ANSWER);
    const { limiter, warnings } = setup(primary, { isPrimaryReady: () => false });
    await expect(limiter.hit(attempt())).rejects.toThrow(/not connected/);
    expect(primary.calls).toBe(0);
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_not_ready' });
  });

  it('refuses once attemptTimeoutMs passes, independently of the requests’ timeoutMs', async () => {
    const { limiter, warnings } = setup(
      stubPrimary(unanswered, () => new Promise(() => {})),
      {
        timeoutMs: 600_000,
        attemptTimeoutMs: 5,
      },
    );
    await expect(limiter.hit(attempt())).rejects.toThrow(/no answer within 5 ms/);
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_timeout', timeoutMs: 5 });
  });

  it('passes an invalid attempt through as a programmer error, without a warning', async () => {
    const { limiter, warnings } = setup(new MemoryRateLimiter());
    await expect(limiter.hit({ windows: [], nowMs: T0 })).rejects.toThrow(RangeError);
    expect(warnings).toEqual([]);
  });
});

describe('FailOpenRateLimiter over ioredis pointed at a closed port', () => {
  const clients: Redis[] = [];
  afterEach(() => {
    for (const client of clients.splice(0)) client.disconnect();
  });

  /** Keeps reconnecting, as production would; `connect()` rejects on the first refusal, which we ignore. */
  function deadRedis(options: { disableOfflineQueue: boolean }) {
    const client = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      enableOfflineQueue: !options.disableOfflineQueue,
      retryStrategy: () => 100,
      connectTimeout: 1_000,
    });
    client.on('error', () => {});
    client.connect().catch(() => {});
    clients.push(client);
    return client;
  }

  async function answersAll(limiter: RateLimiter): Promise<RateLimitDecision[]> {
    return Promise.all(Array.from({ length: 20 }, (_, i) => limiter.check(request(T0 + i))));
  }

  it('answers without touching Redis while the client is not ready', async () => {
    const client = deadRedis({ disableOfflineQueue: false });
    const { limiter, warnings } = setup(new RedisRateLimiter(client), {
      isPrimaryReady: () => isRedisReady(client),
      timeoutMs: 600_000,
    });
    const decisions = await answersAll(limiter);
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_not_ready', fallbacks: 1 });
  });

  it('refuses attempts while the client is not ready, where requests are answered locally', async () => {
    const client = deadRedis({ disableOfflineQueue: false });
    const { limiter } = setup(new RedisRateLimiter(client), {
      isPrimaryReady: () => isRedisReady(client),
      attemptTimeoutMs: 600_000,
    });
    await expect(limiter.hit(attempt())).rejects.toThrow(/not connected/);
    expect(await limiter.check(request())).toMatchObject({ allowed: true });
  });

  it('answers at once when readiness is stale but the offline queue is disabled (commands fail fast)', async () => {
    const client = deadRedis({ disableOfflineQueue: true });
    const { limiter, warnings } = setup(new RedisRateLimiter(client), {
      isPrimaryReady: () => true,
      timeoutMs: 600_000,
    });
    expect((await answersAll(limiter)).filter((decision) => decision.allowed)).toHaveLength(2);
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_error' });
  });

  it('answers after timeoutMs when commands sit in the offline queue', async () => {
    const client = deadRedis({ disableOfflineQueue: false });
    const { limiter, warnings } = setup(new RedisRateLimiter(client), { isPrimaryReady: () => true });
    expect((await answersAll(limiter)).filter((decision) => decision.allowed)).toHaveLength(2);
    expect(warnings[0]?.obj).toMatchObject({ reason: 'primary_timeout', timeoutMs: 50 });
  });
});

/**
 * The rate-limiter conformance suite on memory and on the real Redis of this machine (never skipped), plus
 * what only one implementation has: memory's bounded size, Redis's script loading, key expiry, and one limit
 * shared by separate processes (DESIGN 8: rate limits wrong across instances).
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WINDOW_MS } from '../../src/adapters/rate-limiter/index.js';
import { MemoryRateLimiter } from '../../src/adapters/rate-limiter/memory.js';
import { RedisRateLimiter, type RedisScriptClient } from '../../src/adapters/rate-limiter/redis.js';
import { newId } from '../../src/lib/ids.js';
import { type LimiterUnderTest, rateLimiterConformance } from './rate-limiter.conformance.js';
import { attemptWindowsConformance } from './rate-limiter-attempts.conformance.js';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = 1_750_000_000_000;

/** A key prefix of its own per run, so people and suites sharing this Redis never see each other's windows. */
const uniquePrefix = () => `test:rl:${process.pid}:${randomBytes(6).toString('hex')}:`;

async function connectedClient() {
  const client = new Redis(TEST_REDIS_URL, { lazyConnect: true });
  client.on('error', () => {}); // connection errors surface as rejected commands; a test fails on those
  await client.connect();
  return client;
}

type Client = Redis;

async function deleteKeys(client: Client, prefix: string): Promise<void> {
  for await (const keys of client.scanStream({ match: `${prefix}*`, count: 500 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) await client.del(...keys);
  }
}

const inMemory = async (): Promise<LimiterUnderTest> => ({ limiter: new MemoryRateLimiter(), cleanup: async () => {} });

async function onRedis(): Promise<LimiterUnderTest> {
  const client = await connectedClient();
  const prefix = uniquePrefix();
  const cleanup = async () => {
    try {
      await deleteKeys(client, prefix);
    } finally {
      await client.quit();
    }
  };
  return { limiter: new RedisRateLimiter(client, { prefix }), cleanup };
}

rateLimiterConformance('memory', inMemory);
rateLimiterConformance('redis', onRedis);
attemptWindowsConformance('memory', inMemory);
attemptWindowsConformance('redis', onRedis);

describe('MemoryRateLimiter memory', () => {
  it('forgets windows of keys that stopped sending', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 50; i += 1)
      await limiter.check({
        keyId: newId('key'),
        accountId: newId('acc'),
        keyLimit: 5,
        accountLimit: 5,
        nowMs: T0 + i,
      });
    expect(limiter.windowCount).toBe(100);
    // One window later, any check sweeps every window whose entries have all left.
    await limiter.check({
      keyId: 'key_other',
      accountId: 'acc_other',
      keyLimit: 5,
      accountLimit: 5,
      nowMs: T0 + 49 + WINDOW_MS,
    });
    expect(limiter.windowCount).toBe(2);
  });

  it('forgets attempt buckets once their own window has passed', async () => {
    const limiter = new MemoryRateLimiter();
    const short = { bucket: 'short', limit: 5, windowMs: WINDOW_MS };
    const long = { bucket: 'long', limit: 5, windowMs: 10 * WINDOW_MS };
    await limiter.hit({ windows: [short, long], nowMs: T0 });
    expect(limiter.windowCount).toBe(2);
    await limiter.hit({ windows: [{ ...short, bucket: 'other' }], nowMs: T0 + WINDOW_MS });
    expect(limiter.windowCount).toBe(2); // 'short' swept, 'long' kept, 'other' added
    expect(await limiter.hit({ windows: [long], nowMs: T0 + WINDOW_MS })).toEqual({ allowed: true, remaining: 3 });
  });

  it('drops a pruned-empty window that rejected', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 1000 });
    await limiter.check({ keyId: 'k', accountId: 'a', keyLimit: 0, accountLimit: 5, nowMs: T0 });
    expect(limiter.windowCount).toBe(0);
  });
  it('stays exact when a window holds thousands of entries, across the compactions of its log', async () => {
    const limiter = new MemoryRateLimiter({ windowMs: 1_000 });
    const request = { keyId: 'k', accountId: 'a', keyLimit: 5_000, accountLimit: 50_000 };
    // 4 admissions per ms for 3 s: from t = 1 s on, the i-th at t finds 999 ms × 4 before it, plus its own i + 1.
    for (let t = 0; t < 3_000; t += 1) {
      for (let i = 0; i < 4; i += 1) {
        const decision = await limiter.check({ ...request, nowMs: T0 + t });
        expect(decision.allowed).toBe(true);
        if (t >= 1_000) expect(decision.key.remaining).toBe(5_000 - 3_996 - (i + 1));
      }
    }
    // 1,000 more fill it; the next is refused until the oldest entries (t = 2,000 ms) leave.
    for (let i = 0; i < 1_000; i += 1)
      expect((await limiter.check({ ...request, nowMs: T0 + 2_999 })).allowed).toBe(true);
    const refused = await limiter.check({ ...request, nowMs: T0 + 2_999 });
    expect(refused).toMatchObject({ allowed: false, rejectedBy: 'key', retryAfterMs: 1 });
    expect((await limiter.check({ ...request, nowMs: T0 + 3_000 })).allowed).toBe(true);
  });
});

describe('RedisRateLimiter on the real Redis', () => {
  let client: Client;
  const prefix = uniquePrefix();

  beforeAll(async () => {
    client = await connectedClient();
  });
  afterAll(async () => {
    await deleteKeys(client, prefix);
    await client.quit();
  });

  it('enforces one limit across two limiters on separate connections (two processes)', async () => {
    const other = await connectedClient();
    try {
      const limiters = [new RedisRateLimiter(client, { prefix }), new RedisRateLimiter(other, { prefix })];
      const request = { keyId: newId('key'), accountId: newId('acc'), keyLimit: 120, accountLimit: 600 };
      const decisions = await Promise.all(
        Array.from({ length: 130 }, (_, i) =>
          (limiters[i % 2] as RedisRateLimiter).check({ ...request, nowMs: T0 + (i % 3) }),
        ),
      );
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(120);
      expect(decisions.filter((decision) => !decision.allowed && decision.rejectedBy === 'key')).toHaveLength(10);
    } finally {
      await other.quit();
    }
  });

  it('stores both windows under the prefix and lets them expire after one window', async () => {
    const limiter = new RedisRateLimiter(client, { prefix });
    const keyId = newId('key');
    const accountId = newId('acc');
    await limiter.check({ keyId, accountId, keyLimit: 5, accountLimit: 5, nowMs: Date.now() });
    for (const name of [`${prefix}k:${keyId}`, `${prefix}a:${accountId}`]) {
      expect(await client.zcard(name)).toBe(1);
      const ttlMs = await client.pttl(name);
      expect(ttlMs).toBeGreaterThan(0);
      expect(ttlMs).toBeLessThanOrEqual(WINDOW_MS);
    }
  });

  it('stores an attempt window under the prefix, expiring with its own window length', async () => {
    const limiter = new RedisRateLimiter(client, { prefix });
    const bucket = newId('bucket');
    await limiter.hit({ windows: [{ bucket, limit: 3, windowMs: 15 * WINDOW_MS }], nowMs: Date.now() });
    expect(await client.zcard(`${prefix}h:${bucket}`)).toBe(1);
    const ttlMs = await client.pttl(`${prefix}h:${bucket}`);
    expect(ttlMs).toBeGreaterThan(WINDOW_MS);
    expect(ttlMs).toBeLessThanOrEqual(15 * WINDOW_MS);
  });

  it('loads the script with SCRIPT LOAD, and falls back to EVAL when Redis answers NOSCRIPT', async () => {
    await new RedisRateLimiter(client, { prefix }).loadScript();
    let evalCalls = 0;
    // A Redis that lost its script cache (restart, failover) without flushing the cache shared with others.
    const forgetful: RedisScriptClient = {
      evalsha: async () => {
        throw new Error('NOSCRIPT No matching script. Please use EVAL.');
      },
      eval: (script, numkeys, ...keysAndArguments) => {
        evalCalls += 1;
        return client.eval(script, numkeys, ...keysAndArguments);
      },
      script: (subcommand, script) => client.script(subcommand, script),
    };
    const decision = await new RedisRateLimiter(forgetful, { prefix }).check({
      keyId: newId('key'),
      accountId: newId('acc'),
      keyLimit: 2,
      accountLimit: 2,
      nowMs: T0,
    });
    expect(decision).toMatchObject({ allowed: true, key: { remaining: 1 } });
    expect(evalCalls).toBe(1);
  });

  it('passes other Redis errors through to the caller', async () => {
    const broken: RedisScriptClient = {
      evalsha: async () => {
        throw new Error("READONLY You can't write against a read only replica.");
      },
      eval: async () => expect.fail('EVAL must not be tried'),
      script: async () => expect.fail('not used'),
    };
    await expect(
      new RedisRateLimiter(broken).check({ keyId: 'k', accountId: 'a', keyLimit: 1, accountLimit: 1, nowMs: T0 }),
    ).rejects.toThrow(/READONLY/);
  });
});

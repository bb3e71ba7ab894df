/**
 * The job-store conformance suite on memory and on the real Redis of this machine (never skipped), plus what
 * only one implementation has: memory's sweep of expired records; Redis's key layout and TTL, script loading,
 * and one compare-and-set shared by separate connections (several gateway processes polling one job).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from 'redis';
import type { JobRecord } from '../../src/adapters/job-store/index.js';
import { MemoryJobStore } from '../../src/adapters/job-store/memory.js';
import { RedisJobStore, type RedisJobClient } from '../../src/adapters/job-store/redis.js';
import { newId } from '../../src/domain/ids.js';
import { jobStoreConformance } from './job-store.conformance.js';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = 1_750_000_000_000;

/** A key prefix of its own per run, so people and suites sharing this Redis never see each other's records. */
const uniquePrefix = () => `test:job:${process.pid}:${randomBytes(6).toString('hex')}:`;

async function connectedClient() {
  const client = createClient({ url: TEST_REDIS_URL });
  client.on('error', () => {}); // connection errors surface as rejected commands; a test fails on those
  await client.connect();
  return client;
}

type Client = Awaited<ReturnType<typeof connectedClient>>;

async function deleteKeys(client: Client, prefix: string): Promise<void> {
  for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 500 })) {
    if (keys.length > 0) await client.del(keys);
  }
}

function job(overrides: Partial<JobRecord> = {}): JobRecord {
  return { id: newId('job'), accountId: newId('acc'), kind: 'video', status: 'pending', createdAtMs: T0, updatedAtMs: T0, expiresAtMs: T0 + 7_200_000, data: {}, ...overrides };
}

jobStoreConformance('memory', async () => ({ store: new MemoryJobStore(), cleanup: async () => {} }));

jobStoreConformance('redis', async () => {
  const client = await connectedClient();
  const prefix = uniquePrefix();
  const cleanup = async () => {
    try {
      await deleteKeys(client, prefix);
    } finally {
      await client.close();
    }
  };
  return { store: new RedisJobStore(client, { prefix }), cleanup };
});

describe('MemoryJobStore memory', () => {
  it('sweeps records nobody reads again once they expire', async () => {
    const store = new MemoryJobStore({ sweepIntervalMs: 1_000 });
    for (let i = 0; i < 20; i += 1) await store.create(job({ createdAtMs: T0, updatedAtMs: T0, expiresAtMs: T0 + 100 + i }));
    const live = job({ expiresAtMs: T0 + 10_000 });
    await store.create(live);
    expect(store.size).toBe(21);
    // Within the sweep interval nothing is swept, even though 10 records have expired.
    await store.get(newId('job'), T0 + 109);
    expect(store.size).toBe(21);
    await store.get(newId('job'), T0 + 1_200);
    expect(store.size).toBe(1);
    expect(await store.get(live.id, T0 + 1_200)).toEqual(live);
  });

  it('drops an expired record when it is read', async () => {
    const store = new MemoryJobStore({ sweepIntervalMs: 3_600_000 });
    const record = job({ expiresAtMs: T0 + 10 });
    await store.create(record);
    await store.get(newId('job'), T0); // the first access sweeps; the next hour of clock does not
    expect(await store.get(record.id, T0 + 10)).toBeNull();
    expect(store.size).toBe(0);
  });

  it('lets an id be reused once its record has expired', async () => {
    const store = new MemoryJobStore();
    const record = job({ expiresAtMs: T0 + 10 });
    await store.create(record);
    expect(await store.create({ ...record, createdAtMs: T0 + 10, updatedAtMs: T0 + 10, expiresAtMs: T0 + 20 })).toBe(true);
  });

  it('refuses a non-positive sweep interval', () => {
    expect(() => new MemoryJobStore({ sweepIntervalMs: 0 })).toThrow(RangeError);
  });
});

describe('RedisJobStore on the real Redis', () => {
  let client: Client;
  const prefix = uniquePrefix();

  beforeAll(async () => {
    client = await connectedClient();
  });
  afterAll(async () => {
    await deleteKeys(client, prefix);
    await client.close();
  });

  it('stores one key under the prefix that Redis expires with the retention, kept across transitions', async () => {
    const store = new RedisJobStore(client, { prefix });
    const record = job({ expiresAtMs: T0 + 60_000 });
    await store.create(record);
    const key = `${prefix}${record.id}`;
    const ttlMs = await client.pTTL(key);
    expect(ttlMs).toBeGreaterThan(50_000);
    expect(ttlMs).toBeLessThanOrEqual(60_000);
    await store.transition(record.id, ['pending'], { status: 'completed', data: { a: 1 } }, T0 + 1);
    const after = await client.pTTL(key);
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThanOrEqual(ttlMs);
  });

  it('lets exactly one of 60 transitions on two connections win (two processes polling one job)', async () => {
    const other = await connectedClient();
    try {
      const stores = [new RedisJobStore(client, { prefix }), new RedisJobStore(other, { prefix })];
      const record = job({ status: 'processing' });
      await stores[0]?.create(record);
      const answers = await Promise.all(
        Array.from({ length: 60 }, (_, i) => (stores[i % 2] as RedisJobStore).transition(record.id, ['processing'], { status: 'completed', data: { by: i } }, T0 + i)),
      );
      expect(answers.filter((answer) => answer !== null)).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it('loads the script with SCRIPT LOAD, and falls back to EVAL when Redis answers NOSCRIPT', async () => {
    await new RedisJobStore(client, { prefix }).loadScript();
    let evalCalls = 0;
    // A Redis that lost its script cache (restart, failover) without flushing the cache shared with others.
    const forgetful: RedisJobClient = {
      get: (key) => client.get(key),
      set: (key, value, options) => client.set(key, value, options),
      evalSha: async () => {
        throw new Error('NOSCRIPT No matching script. Please use EVAL.');
      },
      eval: (script, options) => {
        evalCalls += 1;
        return client.eval(script, options);
      },
      scriptLoad: (script) => client.scriptLoad(script),
    };
    const store = new RedisJobStore(forgetful, { prefix });
    const record = job();
    await store.create(record);
    expect(await store.transition(record.id, ['pending'], { status: 'processing' }, T0 + 1)).toMatchObject({ status: 'processing' });
    expect(evalCalls).toBe(1);
  });

  it('passes other Redis errors through to the caller', async () => {
    const broken: RedisJobClient = {
      get: async () => expect.fail('not used'),
      set: async () => expect.fail('not used'),
      evalSha: async () => {
        throw new Error('READONLY You can\'t write against a read only replica.');
      },
      eval: async () => expect.fail('EVAL must not be tried'),
      scriptLoad: async () => expect.fail('not used'),
    };
    await expect(new RedisJobStore(broken).transition('job_x', ['pending'], { status: 'processing' }, T0)).rejects.toThrow(/READONLY/);
  });

  it('reports a value it did not write as corruption, not as an absent job', async () => {
    const store = new RedisJobStore(client, { prefix });
    const id = newId('job');
    await client.set(`${prefix}${id}`, '{"id":"x"}', { expiration: { type: 'PX', value: 60_000 } });
    await expect(store.get(id, T0)).rejects.toThrow(/malformed job record/);
  });
});

/**
 * Redis killed and started again under a running gateway (scale-out acceptance; docs/money.md "Rate limits",
 * src/adapters/rate-limiter/fail-open.ts): a Redis of this file's own, without persistence, so it comes back empty
 * (the machine's shared Redis is never touched). While it is away the process keeps serving: request limits are
 * answered from its own window (still 120 a minute per key, per process) with a warning in the log, sign-in attempts
 * fail closed (503 `not_ready`), and an image job kicked off then is found by the database-backed job scan and
 * completed. Once Redis is back, the shared window is used again and BullMQ dispatches the next job, without a
 * restart. Every job is charged once; and a SIGTERM while Redis is away still stops the process cleanly.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { openLedger } from '../../src/adapters/ledger/open.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { createAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import { expectCompatError, expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { micros } from '../setup/money.js';
import { eventually, pollUntil } from '../setup/polling.js';
import { type PrivateRedis, redisServerBinary, startPrivateRedis } from '../setup/private-redis.js';
import { openAccounts, type ServerProcess, startServerProcess } from '../setup/server-process.js';

const BINARY = redisServerBinary();
const PREFIX = 'faults';
/** SPEC 8: requests per minute per key, the default. */
const KEY_LIMIT = 120;
const WAIT_MS = 30_000;
const IMAGE = { model: 'imgG-4o', prompt: 'A lighthouse in fog' };
const JOBS_PATH = '/v1/llm/images/jobs';

let redis: PrivateRedis | undefined;
let dir: string | undefined;
let db: Database | undefined;
let gateway: ServerProcess | undefined;
let log = '';
let payer: { accountId: string; apiKey: string };
/** Fresh keys of one account (its own 600 a minute stays out of reach), by id: each window starts empty. */
const keys: { id: string; secret: string }[] = [];

beforeAll(async () => {
  if (BINARY === null) return;
  redis = await startPrivateRedis(BINARY);
  dir = mkdtempSync(join(tmpdir(), 'cgw-faults-redis-'));
  const url = `sqlite:${join(dir, 'gateway.sqlite')}`;
  db = connectDatabase(url);
  await migrateToLatest(db);
  [payer] = (await openAccounts(db, 1, 5_000_000n)) as [typeof payer];
  const store = new SqlApiKeyStore(db);
  const limited = await createAccount(store, { email: `faults-redis-${Date.now()}@example.com` });
  for (let i = 0; i < 3; i++) {
    const { record, secret } = await issueKey(store, limited.id, `window ${i}`);
    keys.push({ id: record.id, secret });
  }
  gateway = await startServerProcess(url, {
    REDIS_URL: redis.url,
    JOB_QUEUE_PREFIX: PREFIX,
    // The scan for jobs nobody holds: what covers a kickoff whose wake-up could not be queued.
    JOB_CLAIM_MS: '1000',
    BLOB_DIR: join(dir, 'files'),
    CHARGE_JOURNAL_DIR: join(dir, 'journal'),
  });
  gateway.child.stdout!.on('data', (chunk: Buffer) => void (log += chunk.toString()));
}, 180_000);

afterAll(async () => {
  gateway?.child.kill('SIGKILL');
  await db?.knex.destroy();
  await redis?.destroy();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** `count` calls of one key in a row; answers the statuses in order. */
async function burst(key: string, count: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i++)
    statuses.push((await call(gateway!.baseUrl, 'GET', '/v1/compat/models', { key })).status);
  return statuses;
}

/** The key's window allows exactly KEY_LIMIT calls: one more is 429 `rate_limit_per_key`. */
async function expectWindowOf(key: string): Promise<void> {
  const statuses = await burst(key, KEY_LIMIT);
  expect(statuses.filter((s) => s !== 200)).toEqual([]);
  expectCompatError(await call(gateway!.baseUrl, 'GET', '/v1/compat/models', { key }), 429, 'rate_limit_per_key');
}

/** Kicks off an image job and waits for it to complete; answers its view and its estimate. */
async function completedJob(): Promise<{ jobId: string; estimate: number }> {
  const kickoff = expectNativeOk(
    await call(gateway!.baseUrl, 'POST', JOBS_PATH, { key: payer.apiKey, body: IMAGE }),
    202,
  );
  const job = await eventually(
    async () => {
      const view = expectNativeOk(
        await call(gateway!.baseUrl, 'GET', `${JOBS_PATH}/${kickoff.job_id}`, { key: payer.apiKey }),
      );
      return view.status === 'completed' || view.status === 'failed' ? view : undefined;
    },
    WAIT_MS,
    `image job ${kickoff.job_id} finished`,
  );
  expect(job).toMatchObject({ status: 'completed', cost_usd: kickoff.estimated_cost_usd });
  return { jobId: kickoff.job_id, estimate: kickoff.estimated_cost_usd };
}

/** The BullMQ events of one job in the queue's event stream (an empty Redis after a restart has only newer ones). */
async function queueEvents(jobId: string): Promise<string[]> {
  const entries = await redis!.client().xrange(`${PREFIX}:gateway-jobs:events`, '-', '+');
  return entries.flatMap(([, fields]) => {
    const f = Object.fromEntries(fields.flatMap((v, i) => (i % 2 === 0 ? [[v, fields[i + 1]]] : [])));
    return f.jobId === jobId ? [f.event as string] : [];
  });
}

const signIn = () =>
  call(gateway!.baseUrl, 'POST', '/v1/auth/sessions', {
    body: { email: 'nobody@example.com', password: 'wrong-password-1' },
  });

describe.skipIf(BINARY === null)(
  `Redis killed and restarted under a gateway${BINARY === null ? ' (skipped: no redis-server on PATH; set TEST_REDIS_SERVER)' : ''}`,
  () => {
    it('fails open for request limits (local windows, a warning), closed for sign-in; jobs go on through the database scan; BullMQ and the shared window resume', async () => {
      const client = redis!.client();
      const jobs: { jobId: string; estimate: number }[] = [];
      // Up: the shared window and BullMQ in use.
      expect(await burst(keys[0]!.secret, 1)).toEqual([200]);
      expect(await client.zcard(`rl:k:${keys[0]!.id}`)).toBe(1);
      jobs.push(await completedJob());
      expect(await queueEvents(jobs[0]!.jobId)).toEqual(expect.arrayContaining(['added', 'completed']));

      await redis!.kill();
      // Requests: served, limited by this process's own window.
      await expectWindowOf(keys[1]!.secret);
      expect(log).toContain('rate limiter: shared store unavailable, answering from the local window');
      // Attempts: refused while the shared window is away (a fresh budget per process would help a guesser).
      expectNativeError(await signIn(), 503, 'not_ready');
      // A job kicked off now cannot be queued: the scan of jobs nobody holds finds it.
      jobs.push(await completedJob());

      await redis!.start();
      // Back in the shared window once the limiter's connection is up again (it reconnects on its own).
      await pollUntil(
        async () => (await burst(keys[2]!.secret, 1), await client.zcard(`rl:k:${keys[2]!.id}`).catch(() => 0)),
        (n) => n > 0,
        { withinMs: WAIT_MS, everyMs: 250 },
      );
      const shared = await client.zcard(`rl:k:${keys[2]!.id}`);
      expect(shared).toBeGreaterThan(0);
      const statuses = await burst(keys[2]!.secret, KEY_LIMIT - shared);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);
      expectCompatError(
        await call(gateway!.baseUrl, 'GET', '/v1/compat/models', { key: keys[2]!.secret }),
        429,
        'rate_limit_per_key',
      );
      expect(await client.zcard(`rl:k:${keys[2]!.id}`)).toBe(KEY_LIMIT);
      expect((await signIn()).status).toBe(401);
      // And BullMQ: the next job's wake-up goes through the restarted Redis and its worker takes it.
      jobs.push(await completedJob());
      expect(await queueEvents(jobs[2]!.jobId)).toEqual(expect.arrayContaining(['added', 'completed']));

      expect(gateway!.child.exitCode).toBeNull();
      const ledger = openLedger(db!);
      expect(await ledger.postedSpend(payer.accountId)).toBe(jobs.reduce((sum, j) => sum + micros(j.estimate), 0n));
      expect((await ledger.getBalance(payer.accountId)).heldMicros).toBe(0n);

      // A stop during an outage is clean too: nothing waits on the Redis that is away.
      await redis!.kill();
      gateway!.child.kill('SIGTERM');
      const child = gateway!.child;
      await pollUntil(
        async () => child.exitCode ?? child.signalCode,
        (end) => end !== null,
        { withinMs: WAIT_MS, everyMs: 50 },
      );
      expect({ code: child.exitCode, signal: child.signalCode }).toEqual({ code: 0, signal: null });
    }, 120_000);
  },
);

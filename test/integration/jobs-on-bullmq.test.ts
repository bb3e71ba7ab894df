/**
 * Jobs dispatched through BullMQ (REDIS_URL set, a queue prefix of this run's own): an image job and a speech job
 * kicked off, woken on the queue, claimed and completed, each charged once; the rate limiter shares that Redis.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { untilTerminal } from '../setup/jobs.js';
import { micros } from '../setup/money.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test-bullmq-${process.pid}-${Date.now()}`;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ REDIS_URL, JOB_QUEUE_PREFIX: PREFIX, MEDIA_POLL_MS: '50' });
});

afterAll(async () => {
  await h?.close();
  const client = new Redis(REDIS_URL);
  for await (const keys of client.scanStream({ match: `${PREFIX}*`, count: 500 }) as AsyncIterable<string[]>)
    if (keys.length > 0) await client.del(...keys);
  await client.quit();
});

describe('jobs on BullMQ', () => {
  it.each([
    ['image', '/v1/llm/images/jobs', { model: 'imgG-4o', prompt: 'A lighthouse' }],
    ['speech', '/v1/llm/audio/jobs', { model: 'tts-1', input: 'Queued through Redis.' }],
  ] as const)('%s: completed and charged once', async (_kind, jobs, body) => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(await call(h.baseUrl, 'POST', jobs, { key: apiKey, body }), 202);
    const done = await untilTerminal(h, jobs, apiKey, job.job_id, 10_000);
    expect(done).toMatchObject({ status: 'completed', cost_usd: job.estimated_cost_usd });
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(job.estimated_cost_usd));
  });
});

/** The job-queue conformance suite in process and on BullMQ over the real Redis of this machine (never skipped). */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll } from 'vitest';
import { BullMqJobQueue } from '../../src/adapters/job-queue/bullmq.js';
import { InProcessJobQueue } from '../../src/adapters/job-queue/in-process.js';
import { jobQueueConformance } from './job-queue.conformance.js';

const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `test-jq-${process.pid}-${randomBytes(4).toString('hex')}`;

afterAll(async () => {
  const client = new Redis(TEST_REDIS_URL);
  for await (const keys of client.scanStream({ match: `${PREFIX}*`, count: 500 }) as AsyncIterable<string[]>)
    if (keys.length > 0) await client.del(...keys);
  await client.quit();
});

jobQueueConformance('in-process', async () => new InProcessJobQueue());

let queues = 0;
// A prefix of its own per queue, so runs and suites sharing this Redis never see each other's jobs.
jobQueueConformance('bullmq', async () => BullMqJobQueue.connect(TEST_REDIS_URL, `${PREFIX}-${++queues}`, () => {}));

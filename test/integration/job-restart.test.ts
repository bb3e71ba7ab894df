/**
 * SPEC 3.1 "durable and restartable", proved with the real server process: an image job whose process is killed
 * with SIGKILL mid-render is resumed by the restarted process (once the dead one's lease ran out), completes and
 * is charged exactly once; a speech job whose upstream task was running goes on polling that same task (never
 * submitted twice), completes and is charged once; a chat job cut off the same way is failed and charges nothing.
 * On the embedded SQLite file (jobs dispatched in process) and on PostgreSQL with Redis (dispatched through BullMQ).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/adapters/ledger/open.js';
import { SqlUsageLogStore } from '../../src/adapters/usage-log/sql.js';
import { connectDatabase } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { type FakeQueue, startFakeQueue } from '../fixtures/fake-queue-upstream.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { micros } from '../setup/money.js';
import { eventually } from '../setup/polling.js';
import { openAccounts, processBackends, type ServerProcess, startServerProcess } from '../setup/server-process.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const LEASE_MS = 1_500;
let fake: FakeUpstream;
let queue: FakeQueue;
let dir: string;
const env: Record<string, string> = {};

beforeAll(async () => {
  // Slow renders and answers, so the process can be killed while both are under way.
  fake = await startFakeUpstream({ behaviour: { slowFirstByteMs: 1_500 } });
  // About 4 s in progress at one poll every 200 ms: the process dies while the task runs.
  queue = await startFakeQueue({ renderPolls: 20 });
  const upstreams = writeUpstreamsFile({
    'imgG-4o': [{ provider: 'images', type: 'openai-images', url: fake.baseUrl, cost: { perRequest: 0.01 } }],
    'gpt-5-mini': [{ provider: 'chat', url: fake.baseUrl, cost: { input: 0.1, output: 1 } }],
    'tts-1': [
      {
        provider: 'fal',
        type: 'fal-queue',
        url: queue.baseUrl,
        cost: { perRequest: 0.001 },
        formats: { audio: ['wav'] },
      },
    ],
  });
  dir = mkdtempSync(join(tmpdir(), 'cgw-jobs-'));
  Object.assign(env, {
    UPSTREAMS_FILE: upstreams,
    JOB_LEASE_MS: String(LEASE_MS),
    JOB_CLAIM_MS: '200',
    MEDIA_POLL_MS: '200',
    MEDIA_FETCH_ALLOW: '127.0.0.1',
    BLOB_DIR: join(dir, 'files'),
    CHARGE_JOURNAL_DIR: join(dir, 'journal'),
    // The test polls its jobs every 20 ms for as long as a slow machine takes: the default limits would answer 429.
    RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '1000000',
  });
});

afterAll(async () => {
  await fake?.close();
  await queue?.close();
  removeUpstreamsFiles();
  rmSync(dir, { recursive: true, force: true });
});

async function post(server: ServerProcess, key: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(server.baseUrl + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(202);
  return ((await response.json()) as { data: unknown }).data;
}

async function poll(server: ServerProcess, key: string, path: string): Promise<any> {
  const response = await fetch(server.baseUrl + path, { headers: { authorization: `Bearer ${key}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { data: unknown }).data;
}

describe.each(processBackends(() => dir))('a process killed mid-job, then restarted, on $name', ({ name, open }) => {
  it('resumes the image and speech jobs (completed, charged once, the speech task polled, not submitted again) and fails the chat job (nothing charged)', async () => {
    const { url, drop } = await open();
    const scale: Record<string, string> =
      name === 'PostgreSQL'
        ? { REDIS_URL: 'redis://127.0.0.1:6379', JOB_QUEUE_PREFIX: `test-restart-${process.pid}-${Date.now()}` }
        : {};
    const db = connectDatabase(url);
    let server: ServerProcess | undefined;
    try {
      await migrateToLatest(db);
      const [images, chat, speech] = await openAccounts(db, 3, 5_000_000n);
      server = await startServerProcess(url, { ...env, ...scale });
      const imageJob = await post(server, images!.apiKey, '/v1/llm/images/jobs', {
        model: 'imgG-4o',
        prompt: 'A lighthouse',
        n: 2,
      });
      const chatJob = await post(server, chat!.apiKey, '/v1/llm/chat/jobs', {
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 100,
      });
      const speechJob = await post(server, speech!.apiKey, '/v1/llm/audio/jobs', {
        model: 'tts-1',
        input: 'Read this after a crash.',
        output_format: 'wav',
      });
      const submitted = queue.submissions.length;
      const rendersBefore = fake.requests.filter((r) => r.path.endsWith('/images/generations')).length;
      await eventually(
        async () => (fake.requests.length >= 2 && queue.polls.size > 0 ? true : undefined),
        15_000,
        'every job dispatched',
      );
      server.child.kill('SIGKILL');
      await new Promise((resolve) => server!.child.once('exit', resolve));

      server = await startServerProcess(url, { ...env, ...scale });
      const done = await eventually(
        async () => {
          const job = await poll(server!, images!.apiKey, `/v1/llm/images/jobs/${imageJob.job_id}`);
          return job.status === 'completed' ? job : undefined;
        },
        15_000,
        'the image job resumed and completed',
      );
      expect(done).toMatchObject({
        job_id: imageJob.job_id,
        cost_usd: imageJob.estimated_cost_usd,
        usage: { images: 2 },
      });
      expect(done.images).toHaveLength(2);
      // The render the dead process started was never delivered: the resumed job rendered once more.
      expect(fake.requests.filter((r) => r.path.endsWith('/images/generations')).length).toBe(rendersBefore + 1);
      const failed = await eventually(
        async () => {
          const job = await poll(server!, chat!.apiKey, `/v1/llm/chat/jobs/${chatJob.job_id}`);
          return job.status === 'failed' ? job : undefined;
        },
        15_000,
        'the chat job failed',
      );
      expect(failed.error).toMatch(/restarted/);
      const spoken = await eventually(
        async () => {
          const job = await poll(server!, speech!.apiKey, `/v1/llm/audio/jobs/${speechJob.job_id}`);
          return job.status === 'completed' ? job : undefined;
        },
        15_000,
        'the speech job resumed and completed',
      );
      expect(spoken).toMatchObject({ cost_usd: speechJob.estimated_cost_usd, outputs: [{ format: 'wav' }] });
      expect(queue.submissions.length).toBe(submitted);

      const ledger = openLedger(db);
      const usage = new SqlUsageLogStore(db);
      const charged = await ledger.postedSpend(images!.accountId);
      expect(charged).toBe(micros(imageJob.estimated_cost_usd));
      expect((await usage.totals(images!.accountId, {})).costMicros).toBe(charged);
      expect((await ledger.getBalance(images!.accountId)).heldMicros).toBe(0n);
      expect(await ledger.postedSpend(chat!.accountId)).toBe(0n);
      expect(await ledger.postedSpend(speech!.accountId)).toBe(micros(speechJob.estimated_cost_usd));
      expect((await usage.totals(speech!.accountId, {})).costMicros).toBe(await ledger.postedSpend(speech!.accountId));
    } finally {
      server?.child.kill('SIGKILL');
      await db.knex.destroy();
      await drop();
    }
  });
});

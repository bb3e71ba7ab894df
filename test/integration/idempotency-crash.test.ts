/**
 * One Idempotency-Key, one resource, one charge, across kill -9 (docs/money.md, threat model): every
 * paid POST is sent with a key to the real server process (`src/main.ts`), which is killed with SIGKILL once every
 * request has claimed its key, whatever each was doing then (waiting on a slow upstream, hosting a job's inputs,
 * placing a rental). After a restart and the claims' lease, each request is retried with its key: it is replayed,
 * answered 409, or run again when the first left nothing behind, and never makes a second job, rental, volume, burst
 * order or chat message, nor a second charge. On the embedded SQLite file and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { newId } from '../../src/lib/ids.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { MACHINE } from '../setup/market.js';
import { pollUntil } from '../setup/polling.js';
import { openAccounts, processBackends, type ServerProcess, startServerProcess } from '../setup/server-process.js';
import { sleep } from '../setup/time.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const HOLD_TTL_MS = 3_000;
const OPENING_MICROS = 200_000_000n;
const MESSAGES = [{ role: 'user', content: 'Tell me something.' }];

/** A paid POST, what it is sent with, and how to count what it created for its account. */
interface Kind {
  name: string;
  path: (setup: Setup) => string;
  body: (setup: Setup) => Record<string, unknown> | undefined;
  /** Rows of what the request creates, for its account (jobs, rentals, ...); null when only a charge is left. */
  created: ((db: Database, accountId: string, setup: Setup) => Promise<number>) | null;
}

/** What some kinds need made first: a provider's machine, a chat, a completed video draft. */
interface Setup {
  gpu: string;
  machineId: string;
  chatId: string;
  draftId: string;
}

const count = async (db: Database, table: string, where: Record<string, string>) =>
  Number(((await db.knex(table).where(where).count({ n: '*' })) as { n: number | string }[])[0]!.n);
const jobsOf = (db: Database, accountId: string) => count(db, 'jobs', { account_id: accountId });

const KINDS: Kind[] = [
  {
    name: 'chat',
    path: () => '/v1/compat/chat/completions',
    body: () => ({ model: 'gpt-5-mini', messages: MESSAGES }),
    created: null,
  },
  {
    name: 'native chat',
    path: () => '/v1/llm/chat/completions',
    body: () => ({ model: 'gpt-5-mini', messages: MESSAGES }),
    created: null,
  },
  {
    name: 'Responses',
    path: () => '/v1/responses',
    body: () => ({ model: 'gpt-5-mini', input: 'Tell me something.' }),
    created: null,
  },
  {
    name: 'embeddings',
    path: () => '/v1/compat/embeddings',
    body: () => ({ model: 'text-embedding-3-small', input: ['one', 'two'] }),
    created: null,
  },
  {
    name: 'rerank',
    path: () => '/v1/compat/rerank',
    body: () => ({ model: 'bge-reranker-v2-m3', query: 'boats', documents: ['a boat', 'a car'] }),
    created: null,
  },
  {
    name: 'image',
    path: () => '/v1/llm/images/generations',
    body: () => ({ model: 'imgG-4o', prompt: 'Fog over a harbour' }),
    created: null,
  },
  {
    name: 'image job',
    path: () => '/v1/llm/images/jobs',
    body: () => ({ model: 'imgG-4o', prompt: 'Fog over a harbour' }),
    created: jobsOf,
  },
  {
    name: 'speech job',
    path: () => '/v1/llm/audio/jobs',
    body: () => ({ model: 'kokoro-82m', input: 'Hello there.', voice: 'bm_george' }),
    created: jobsOf,
  },
  {
    name: 'music job',
    path: () => '/v1/llm/music/jobs',
    body: () => ({ model: 'stable-audio-2-5', prompt: 'Calm piano', duration: 3 }),
    created: jobsOf,
  },
  {
    name: 'video job',
    path: () => '/v1/llm/videos/jobs',
    body: () => ({ model: 'vidA-2-5', duration: 4, prompt: 'A paper boat' }),
    created: jobsOf,
  },
  {
    name: 'chat job',
    path: () => '/v1/llm/chat/jobs',
    body: () => ({ model: 'gpt-5-mini', messages: MESSAGES }),
    created: jobsOf,
  },
  {
    name: 'restoration image job',
    path: () => '/v1/llm/topaz/image/jobs',
    body: () => ({ model: 'topaz-gigapixel-standard', image_url: SOURCE_IMAGE, scale: 2 }),
    created: jobsOf,
  },
  // The draft is a video job of the same account, made before the kill.
  {
    name: 'video final',
    path: (s) => `/v1/llm/videos/jobs/${s.draftId}/final`,
    body: () => undefined,
    created: async (db, accountId) => (await count(db, 'jobs', { account_id: accountId, kind: 'video' })) - 1,
  },
  {
    name: 'chat message',
    path: (s) => `/v1/llm/chats/${s.chatId}/messages`,
    body: () => ({ model: 'gpt-5-mini', content: 'Name a colour.' }),
    created: (db, _a, s) => count(db, 'chat_dialogues', { chat_id: s.chatId }),
  },
  {
    name: 'rental',
    path: () => '/v1/instances',
    body: (s) => ({ offer_id: s.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour', gpu_count: 1 }),
    created: (db, accountId) => count(db, 'instances', { account_id: accountId }),
  },
  {
    name: 'volume',
    path: () => '/v1/volumes',
    body: () => ({ size_gb: 10 }),
    created: (db, accountId) => count(db, 'volumes', { account_id: accountId }),
  },
  {
    name: 'burst order',
    path: () => '/v1/burst/orders',
    body: (s) => ({ docker_image: 'ubuntu:24.04', primary_gpu: s.gpu, gpu_count: 1, pricing_type: 'hour' }),
    created: (db, accountId) => count(db, 'burst_orders', { account_id: accountId }),
  },
];

let SOURCE_IMAGE = '';
let slow: FakeUpstream;
let dir: string;
const SERVER_ENV: Record<string, string> = {};

beforeAll(async () => {
  SOURCE_IMAGE = (
    await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 90, g: 20, b: 40 } } })
      .png()
      .toBuffer()
  ).toString('base64');
  // Chat and embeddings wait on an upstream long enough for the kill to land while they are dispatched.
  slow = await startFakeUpstream({ behaviour: { slowFirstByteMs: 1_500 } });
  const upstreams = writeUpstreamsFile(
    {
      'gpt-5-mini': [{ provider: 'slow', url: slow.baseUrl, cost: { input: 0.1, output: 1 } }],
      'text-embedding-3-small': [{ provider: 'slow', url: slow.baseUrl, cost: { input: 0.01 } }],
    },
    { sandboxDefault: true },
  );
  dir = mkdtempSync(join(tmpdir(), 'cgw-idem-crash-'));
  Object.assign(SERVER_ENV, {
    UPSTREAMS_FILE: upstreams,
    BILLING_HOLD_TTL_MS: String(HOLD_TTL_MS),
    BILLING_LEASE_TTL_MS: String(HOLD_TTL_MS),
    REQUEST_DEADLINE_MS: '2500',
    CHAT_JOB_BUDGET_MS: '2500',
    IMAGE_RENDER_BUDGET_MS: '2500',
    IMAGE_JOB_BUDGET_MS: '2500',
    MEDIA_JOB_BUDGET_MS: '2500',
    HOLD_SWEEP_MS: '250',
    CHARGE_JOURNAL_DIR: join(dir, 'journal'),
  });
});

afterAll(async () => {
  await slow?.close();
  removeUpstreamsFiles();
  rmSync(dir, { recursive: true, force: true });
});

async function post(
  server: ServerProcess,
  apiKey: string,
  path: string,
  body: unknown,
  key?: string,
): Promise<{ status: number; text: string; headers: Headers }> {
  const response = await fetch(server.baseUrl + path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      'user-agent': 'crash-test/1',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, text: await response.text(), headers: response.headers };
}

/** The machine, chat and draft some kinds need, made through the API. */
async function prepare(
  server: ServerProcess,
  provider: { apiKey: string },
  accountOf: (kind: string) => { apiKey: string },
): Promise<Setup> {
  const gpu = newId('gpu');
  const machine = await post(server, provider.apiKey, '/v1/provider/machines', {
    ...MACHINE,
    gpu_name: gpu,
    gpu_count: 8,
  });
  expect(machine.status, machine.text).toBe(201);
  const chat = await post(server, accountOf('chat message').apiKey, '/v1/llm/chats', {});
  expect(chat.status, chat.text).toBe(201);
  const finalAccount = accountOf('video final');
  const draft = await post(server, finalAccount.apiKey, '/v1/llm/videos/jobs', {
    model: 'vidA-2-5',
    duration: 4,
    resolution: '480p',
    prompt: 'A draft',
  });
  expect(draft.status, draft.text).toBe(202);
  const draftId = JSON.parse(draft.text).data.job_id as string;
  const draftStatus = async () => {
    const poll = await fetch(`${server.baseUrl}/v1/llm/videos/jobs/${draftId}`, {
      headers: { authorization: `Bearer ${finalAccount.apiKey}`, 'user-agent': 'crash-test/1' },
    });
    return ((await poll.json()) as { data: { status: string } }).data.status;
  };
  const status = await pollUntil(draftStatus, (s) => s === 'completed' || s === 'failed', {
    withinMs: 15_000,
    everyMs: 50,
  });
  expect(status).not.toBe('failed');
  if (status !== 'completed') throw new Error('the draft did not complete');
  return {
    gpu,
    machineId: JSON.parse(machine.text).data.machine_id,
    chatId: JSON.parse(chat.text).data.chat_id,
    draftId,
  };
}

/** Resolves once `n` claims are stored: every request has its key and is past the point a retry could not see it. */
async function claimsStored(db: Database, keys: string[]): Promise<void> {
  const stored = async () => Number((await db.knex('idempotency_keys').whereIn('key', keys).count({ n: '*' }))[0]!.n);
  const claims = await pollUntil(stored, (n) => n === keys.length, { withinMs: 15_000, everyMs: 5 });
  if (claims !== keys.length) throw new Error('not every request claimed its key');
}

describe.each(processBackends(() => dir))(
  'kill -9 with every paid POST in flight under an Idempotency-Key, on $name',
  ({ open }) => {
    it('a retry after the restart replays, answers 409 or runs what never ran: one resource and one charge per key', async () => {
      const { url, drop } = await open();
      const db = connectDatabase(url);
      let server: ServerProcess | undefined;
      try {
        await migrateToLatest(db);
        const [provider, ...accounts] = await openAccounts(db, KINDS.length + 1, OPENING_MICROS);
        const accountOf = (name: string) => accounts[KINDS.findIndex((k) => k.name === name)]!;
        server = await startServerProcess(url, SERVER_ENV);
        const setup = await prepare(server, provider!, accountOf);
        const linesBefore = await Promise.all(
          accounts.map(({ accountId }) => count(db, 'usage_records', { account_id: accountId })),
        );
        const keys = KINDS.map(() => newId('idem'));
        const first = KINDS.map((kind, i) =>
          post(server!, accounts[i]!.apiKey, kind.path(setup), kind.body(setup), keys[i]).catch(() => null),
        );
        await claimsStored(db, keys);
        server.child.kill('SIGKILL');
        // A request answered before the kill must have been a success: a refusal would mean this test sent it wrong.
        for (const [i, answer] of (await Promise.all(first)).entries())
          if (answer !== null) expect(answer.status, `${KINDS[i]!.name}: ${answer.text}`).toBeLessThan(300);

        server = await startServerProcess(url, SERVER_ENV);
        await sleep(HOLD_TTL_MS + 500);
        const retries = await Promise.all(
          KINDS.map((kind, i) => post(server!, accounts[i]!.apiKey, kind.path(setup), kind.body(setup), keys[i])),
        );
        for (const [i, kind] of KINDS.entries()) {
          const retry = retries[i]!;
          const { accountId } = accounts[i]!;
          expect([200, 201, 202, 409], `${kind.name}: ${retry.text}`).toContain(retry.status);
          // A retry that ran made the one resource; a 409 may stand for one the first request made, or began to.
          const created = kind.created === null ? null : await kind.created(db, accountId, setup);
          if (created !== null)
            expect({ kind: kind.name, created }).toEqual({
              kind: kind.name,
              created: retry.status === 409 ? Math.min(created, 1) : 1,
            });
          // One charge at most per key; a job's may come later, when it completes, and is its hold's settlement.
          const lines = (await count(db, 'usage_records', { account_id: accountId })) - linesBefore[i]!;
          expect({ kind: kind.name, lines: lines <= 1 }).toEqual({ kind: kind.name, lines: true });
        }
      } finally {
        server?.child.kill('SIGKILL');
        await db.knex.destroy();
        await drop();
      }
    }, 120_000);
  },
);

/**
 * SIGTERM, as an orchestrator stops a gateway in a rolling deploy (scale-out acceptance; src/main.ts): the real
 * server process stops taking connections at once, lets the stream it is serving finish (`[DONE]`, charged before
 * the process goes), hands the image job it was rendering back (its lease released, so the next process, started
 * meanwhile on the same PostgreSQL database, takes it at its next scan instead of after JOB_LEASE_MS, and charges it
 * once), and exits 0. A stream that would outlast SHUTDOWN_DRAIN_MS is cut at that deadline (on SQLite), and the
 * process still exits 0, long before the stream would have ended.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/adapters/ledger/open.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { type FakeUpstream, fakeChunkText, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { postgresSchema, TEST_POSTGRES_URL } from '../setup/databases.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { micros } from '../setup/money.js';
import { eventually, pollUntil } from '../setup/polling.js';
import { openAccounts, type ServerProcess, startServerProcess } from '../setup/server-process.js';
import { parseSse } from '../setup/sse.js';
import { sleep } from '../setup/time.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

/** A stream of a few seconds: still running when the signal comes, and over well inside the drain deadline. */
const CHUNKS = 16;
/** A stream of minutes: only the drain deadline ends it within the test. */
const ENDLESS_CHUNKS = 1_000;
const CHUNK_MS = 250;
/** The drained process's job lease: far beyond the test, so a job taken within it was handed back, not expired. */
const JOB_LEASE_MS = 600_000;
/** The next process's: a lease of this length or less on the job is the next process's, never the first's. */
const NEXT_JOB_LEASE_MS = 60_000;
const WAIT_MS = 30_000;
const IMAGE = { model: 'imgG-4o', prompt: 'A lighthouse in fog' };

type Account = { accountId: string; apiKey: string };

interface Backend {
  url: string;
  db: Database;
  env: Record<string, string>;
  accounts: [Account, Account];
  drop: () => Promise<void>;
}

let dir: string;
let fake: FakeUpstream | undefined;
let endless: FakeUpstream | undefined;
/** The drained process's database (the next process starts on it too), and the cut one's. */
let drained: Backend | undefined;
let cut: Backend | undefined;
/** The first process on each, started together. */
let first: { drained: ServerProcess; cut: ServerProcess };
const processes: ServerProcess[] = [];

/** A migrated database: a new PostgreSQL schema (several processes at once), or a SQLite file (one at a time). */
async function database(name: string, kind: 'postgres' | 'sqlite') {
  if (kind === 'sqlite') {
    const url = `sqlite:${join(dir, `${name}.sqlite`)}`;
    const db = connectDatabase(url);
    await migrateToLatest(db);
    return { url, db, drop: () => db.knex.destroy() };
  }
  const pg = await postgresSchema();
  return { url: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${pg.schema}`, db: pg.db, drop: () => pg.drop() };
}

async function backend(name: string, kind: 'postgres' | 'sqlite', upstream: FakeUpstream, env: Record<string, string>) {
  const { url, db, drop } = await database(name, kind);
  const accounts = (await openAccounts(db, 2, 5_000_000n)) as [Account, Account];
  const upstreams = writeUpstreamsFile({
    'gpt-5-mini': [{ provider: 'chat', url: upstream.baseUrl, cost: { input: 0.1, output: 1 } }],
    'imgG-4o': [{ provider: 'images', type: 'openai-images', url: upstream.baseUrl, cost: { perRequest: 0.01 } }],
  });
  const files = { BLOB_DIR: join(dir, `${name}-files`), CHARGE_JOURNAL_DIR: join(dir, `${name}-journal`) };
  const settings = { UPSTREAMS_FILE: upstreams, JOB_LEASE_MS: String(JOB_LEASE_MS), ...files, ...env };
  return { url, db, drop, accounts, env: settings } satisfies Backend;
}

async function start(b: Backend, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess(b.url, { ...b.env, ...env });
  processes.push(server);
  return server;
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cgw-faults-sigterm-'));
  let images = 0;
  // The first render does not answer within the test: the job is mid-render when its process is told to stop.
  fake = await startFakeUpstream({
    streamChunks: CHUNKS,
    chunkIntervalMs: CHUNK_MS,
    behaviour: (r) => (r.path.endsWith('/images/generations') && images++ === 0 ? { slowFirstByteMs: 600_000 } : 'ok'),
  });
  endless = await startFakeUpstream({ streamChunks: ENDLESS_CHUNKS, chunkIntervalMs: CHUNK_MS });
  drained = await backend('drained', 'postgres', fake, { SHUTDOWN_DRAIN_MS: '60000', JOB_CLAIM_MS: '300' });
  cut = await backend('cut', 'sqlite', endless, { SHUTDOWN_DRAIN_MS: '2000' });
  const [a, b] = await Promise.all([start(drained), start(cut)]);
  first = { drained: a, cut: b };
}, 180_000);

afterAll(async () => {
  for (const p of processes) p.child.kill('SIGKILL');
  await Promise.all(processes.map((p) => exitOf(p.child, 10_000)));
  for (const b of [drained, cut]) await b?.drop();
  await fake?.close();
  await endless?.close();
  removeUpstreamsFiles();
  rmSync(dir, { recursive: true, force: true });
});

type Exit = { code: number | null; signal: string | null };

/** How the process ended, or `running` if it has not within `withinMs`. */
function exitOf(child: ChildProcess, withinMs: number): Promise<Exit | 'running'> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return Promise.race([
    new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
    sleep(withinMs).then(() => 'running' as const),
  ]);
}

/** A chat stream read as it comes: `first` once its first content chunk arrived, `done` with the whole text. */
async function openStream(baseUrl: string, key: string): Promise<{ first: Promise<void>; done: Promise<string> }> {
  const response = await fetch(`${baseUrl}/v1/compat/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Slowly.' }], stream: true }),
  });
  expect(response.status).toBe(200);
  let text = '';
  let arrived: () => void = () => undefined;
  const first = new Promise<void>((resolve) => (arrived = resolve));
  const done = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        text += decoder.decode(chunk, { stream: true });
        if (text.includes(fakeChunkText(0))) arrived();
      }
    } catch {
      // The connection was cut: what arrived is the answer.
    }
    return text;
  })();
  return { first, done };
}

/** A request on a new connection (no pool): its status, or the error code of a connection that was not taken. */
function freshConnection(baseUrl: string): Promise<number | string> {
  return new Promise((resolve) => {
    const req = request(`${baseUrl}/healthz`, { agent: false, headers: { 'user-agent': 'faults/1' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

const contentChunks = (text: string) => parseSse(text).filter((f) => f.includes('"content":"chunk')).length;
const renders = () => fake!.requests.filter((r) => r.path.endsWith('/images/generations')).length;

/** Polls the job through `server` until it is terminal. */
function finished(server: ServerProcess, key: string, jobId: string): Promise<any> {
  return eventually(
    async () => {
      const view = expectNativeOk(await call(server.baseUrl, 'GET', `/v1/llm/images/jobs/${jobId}`, { key }));
      return view.status === 'completed' || view.status === 'failed' ? view : undefined;
    },
    WAIT_MS,
    `image job ${jobId} finished`,
  );
}

describe('SIGTERM', () => {
  it('stops taking connections, lets the open stream end with [DONE], hands its image job back, exits 0', async () => {
    const [streamer, payer] = drained!.accounts;
    const gateway = first.drained;
    const kickoff = expectNativeOk(
      await call(gateway.baseUrl, 'POST', '/v1/llm/images/jobs', { key: payer.apiKey, body: IMAGE }),
      202,
    );
    await eventually(async () => (renders() > 0 ? true : undefined), WAIT_MS, 'the render under way');
    // The next process of the rolling deploy starts now (the job is held, so it cannot take it before the hand-back).
    const starting = start(drained!, { JOB_LEASE_MS: String(NEXT_JOB_LEASE_MS) });
    starting.catch(() => undefined); // awaited below; a failure before that must not go unhandled
    const stream = await openStream(gateway.baseUrl, streamer.apiKey);
    await stream.first;
    expect(await freshConnection(gateway.baseUrl)).toBe(200);

    gateway.child.kill('SIGTERM');
    const refused = await pollUntil(
      () => freshConnection(gateway.baseUrl),
      (r) => r !== 200,
      { withinMs: WAIT_MS },
    );
    // Refused, or reset: a connection the kernel completed just before the listener closed is reset, never served.
    expect(['ECONNREFUSED', 'ECONNRESET', 503]).toContain(refused);
    const text = await stream.done;
    expect(parseSse(text).at(-1)).toBe('[DONE]');
    expect(contentChunks(text)).toBe(CHUNKS);
    expect(await exitOf(gateway.child, WAIT_MS)).toEqual({ code: 0, signal: null });

    // Handed back: not finished by the first process, and its 10-minute lease gone (free, or the next process's).
    const row = await drained!.db.knex('jobs').where({ id: kickoff.job_id }).first();
    expect(['completed', 'failed']).not.toContain(row.status);
    expect(Number(row.lease_until_ms)).toBeLessThanOrEqual(Date.now() + NEXT_JOB_LEASE_MS);
    // The stream was charged before the process went.
    const ledger = openLedger(drained!.db);
    expect(await drained!.db.knex('usage_records').where({ account_id: streamer.accountId })).toHaveLength(1);
    expect(await ledger.postedSpend(streamer.accountId)).toBeGreaterThan(0n);
    expect((await ledger.getBalance(streamer.accountId)).heldMicros).toBe(0n);

    // The next process renders the job once more and charges it once.
    const next = await starting;
    const job = await finished(next, payer.apiKey, kickoff.job_id);
    expect(job).toMatchObject({ status: 'completed', cost_usd: kickoff.estimated_cost_usd });
    expect(await ledger.postedSpend(payer.accountId)).toBe(micros(kickoff.estimated_cost_usd));
    expect((await ledger.getBalance(payer.accountId)).heldMicros).toBe(0n);
    expect(renders()).toBe(2);

    // With nothing open, a stop is prompt and clean too.
    next.child.kill('SIGTERM');
    expect(await exitOf(next.child, WAIT_MS)).toEqual({ code: 0, signal: null });
  }, 120_000);

  it('cuts a stream that outlasts SHUTDOWN_DRAIN_MS at the deadline, and still exits 0', async () => {
    const gateway = first.cut;
    const stream = await openStream(gateway.baseUrl, cut!.accounts[0].apiKey);
    await stream.first;
    gateway.child.kill('SIGTERM');
    // The stream alone would run for minutes (ENDLESS_CHUNKS × CHUNK_MS): an exit within WAIT_MS is the deadline's.
    expect(await exitOf(gateway.child, WAIT_MS)).toEqual({ code: 0, signal: null });
    const text = await stream.done;
    expect(text).not.toContain('[DONE]');
    expect(contentChunks(text)).toBeGreaterThan(0);
    expect(contentChunks(text)).toBeLessThan(ENDLESS_CHUNKS);
  }, 60_000);
});

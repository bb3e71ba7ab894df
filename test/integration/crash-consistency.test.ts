/**
 * Usage exactly once, durably (src/adapters/ledger/README.md "Usage lines"), proved the hard way: the real
 * server process (`src/main.ts`) under paid load (non-stream chat, streams, embeddings) is killed with SIGKILL
 * while requests are in flight, then restarted on the same database. Every answer the clients received has its
 * usage line (a charge is durable before its answer leaves), and only requests in flight at the kill can have a
 * line without an answer. Once the dead process's holds and leases are past their TTL plus one sweep, for every
 * account what left the balance equals the sum of its usage lines to the micro-dollar, nothing is held any more,
 * and the books balance. On the embedded SQLite file and on PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLedger } from '../../src/adapters/ledger/open.js';
import { SqlUsageLogStore } from '../../src/adapters/usage-log/sql.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { pollUntil } from '../setup/polling.js';
import { openAccounts, processBackends, type ServerProcess, startServerProcess } from '../setup/server-process.js';
import { jobBudgetsWithin } from '../setup/short-holds.js';
import { sleep } from '../setup/time.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const OPENING_MICROS = 20_000_000n;
const HOLD_TTL_MS = 2_500;
const SWEEP_MS = 250;
/** The longest wait for the restarted process to release the dead one's holds (a loaded machine runs sweeps late). */
const SETTLE_LIMIT_MS = 20_000;
const ACCOUNTS = 4;
const WORKERS = 12;

let fake: FakeUpstream;
let upstreams: string;
let dir: string;

/** The settings of every server process of this suite (the upstreams file is written before any starts). */
const SERVER_ENV: Record<string, string> = {};

beforeAll(async () => {
  // Slow enough that requests are in flight when the process dies, at every stage (dispatch, stream, settle).
  fake = await startFakeUpstream({
    behaviour: { slowFirstByteMs: 40 },
    streamChunks: 6,
    chunkIntervalMs: 30,
    usage: { promptTokens: 900, completionTokens: 400 },
  });
  upstreams = writeUpstreamsFile({
    'gpt-5-mini': [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 1 } }],
    'text-embedding-3-small': [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.01 } }],
  });
  dir = mkdtempSync(join(tmpdir(), 'cgw-crash-'));
  Object.assign(SERVER_ENV, {
    UPSTREAMS_FILE: upstreams,
    BILLING_HOLD_TTL_MS: String(HOLD_TTL_MS),
    // Busy accounts reserve from leases (src/domain/billing/billing-leases.ts): the dead process's expire like its holds.
    BILLING_LEASE_TTL_MS: String(HOLD_TTL_MS),
    REQUEST_DEADLINE_MS: '2000',
    CHAT_JOB_BUDGET_MS: '2000',
    ...jobBudgetsWithin(2000),
    HOLD_SWEEP_MS: String(SWEEP_MS),
    RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '1000000',
    CHARGE_JOURNAL_DIR: join(dir, 'journal'),
  });
});

afterAll(async () => {
  await fake?.close();
  removeUpstreamsFiles();
  rmSync(dir, { recursive: true, force: true });
});

const BODIES = [
  {
    path: '/v1/compat/chat/completions',
    body: { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Tell me something.' }], max_tokens: 600 },
  },
  {
    path: '/v1/compat/chat/completions',
    body: { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Stream it.' }], max_tokens: 600, stream: true },
  },
  {
    path: '/v1/llm/chat/completions',
    body: { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'Native.' }], max_tokens: 600 },
  },
  {
    path: '/v1/compat/embeddings',
    body: { model: 'text-embedding-3-small', input: ['one sentence to embed', 'and another'] },
  },
];

interface Traffic {
  /** Requests in flight now. */
  n: number;
  /** Request ids of the answers received whole: a 200, and for a stream its `[DONE]`. */
  answered: string[];
}

/** Paid requests from every account, as fast as the workers go, until the process dies; counts those in flight. */
function load(
  baseUrl: string,
  accounts: { apiKey: string }[],
  stop: { now: boolean },
  inFlight: Traffic,
): Promise<void> {
  const worker = async (w: number) => {
    for (let i = 0; !stop.now; i++) {
      const { path, body } = BODIES[(w + i) % BODIES.length]!;
      inFlight.n++;
      try {
        const response = await fetch(baseUrl + path, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${accounts[(w + i) % accounts.length]!.apiKey}`,
            'content-type': 'application/json',
            'user-agent': 'crash-test/1',
          },
          body: JSON.stringify(body),
        });
        const text = await response.text();
        const whole = body.stream !== true || text.includes('data: [DONE]');
        if (response.status === 200 && whole) inFlight.answered.push(response.headers.get('x-request-id')!);
      } catch {
        // The process died under this request: exactly the case under test.
      } finally {
        inFlight.n--;
      }
    }
  };
  return Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w))).then(() => undefined);
}

/** Until no account holds anything and what left each balance is its usage lines, or SETTLE_LIMIT_MS passed. */
async function booksSettled(db: Database, accountIds: string[]): Promise<void> {
  const ledger = openLedger(db);
  const usage = new SqlUsageLogStore(db);
  const settled = async (accountId: string) => {
    const balance = await ledger.getBalance(accountId);
    return (
      balance.heldMicros === 0n &&
      OPENING_MICROS - balance.availableMicros === (await usage.totals(accountId, {})).costMicros
    );
  };
  const allSettled = async () => (await Promise.all(accountIds.map(settled))).every(Boolean);
  await pollUntil(allSettled, Boolean, { withinMs: SETTLE_LIMIT_MS, everyMs: SWEEP_MS });
}

const backends = processBackends(() => dir);

describe.each(backends)('kill -9 under paid load, then a restart, on $name', ({ open }) => {
  it('bills every answer received, and leaves Σ usage lines = what left each balance, no hold past its TTL, balanced books', async () => {
    const { url, drop } = await open();
    const db = connectDatabase(url);
    let server: ServerProcess | undefined;
    try {
      await migrateToLatest(db);
      const accounts = await openAccounts(db, ACCOUNTS, OPENING_MICROS);
      server = await startServerProcess(url, SERVER_ENV);
      const stop = { now: false };
      const traffic: Traffic = { n: 0, answered: [] };
      const running = load(server.baseUrl, accounts, stop, traffic);
      // Killed once a good number of answers went out, however busy the machine is.
      await pollUntil(
        async () => traffic.answered.length,
        (n) => n >= 40,
        { withinMs: 20_000, everyMs: 50 },
      );
      expect(traffic.answered.length).toBeGreaterThan(10);
      const inFlightAtKill = traffic.n;
      server.child.kill('SIGKILL');
      stop.now = true;
      await running;
      expect(inFlightAtKill).toBeGreaterThan(0);
      const answered = traffic.answered.length;

      server = await startServerProcess(url, SERVER_ENV);
      // The dead process's holds: expired at their TTL, released by the restarted process's sweeper, whenever a busy
      // machine lets it run: waited for, not timed (the books are checked in full below either way).
      await sleep(HOLD_TTL_MS);
      await booksSettled(
        db,
        accounts.map((a) => a.accountId),
      );

      // Every answer received is billed; a line without an answer can only be a request cut off by the kill.
      const billed = new Set(
        ((await db.knex('usage_records').select('request_id')) as { request_id: string }[]).map((r) => r.request_id),
      );
      expect(traffic.answered.slice(0, answered).filter((id) => !billed.has(id))).toEqual([]);
      expect(billed.size - answered).toBeLessThanOrEqual(inFlightAtKill);
      expect(billed.size).toBeGreaterThanOrEqual(answered);

      const ledger = openLedger(db);
      const usage = new SqlUsageLogStore(db);
      let charged = 0n;
      for (const { accountId } of accounts) {
        const balance = await ledger.getBalance(accountId);
        const lines = await usage.totals(accountId, {});
        expect({ accountId, held: balance.heldMicros }).toEqual({ accountId, held: 0n });
        expect({ accountId, left: OPENING_MICROS - balance.availableMicros }).toEqual({
          accountId,
          left: lines.costMicros,
        });
        expect(await ledger.postedSpend(accountId)).toBe(lines.costMicros);
        charged += lines.costMicros;
      }
      expect(charged).toBeGreaterThan(0n);
      // Both ways of paying were cut short: holds of their own, and captures from leases.
      const kinds = (await db.knex('ledger_transfers').whereIn('kind', ['capture', 'hold']).distinct('kind')) as {
        kind: string;
      }[];
      expect(kinds.map((k) => k.kind).sort()).toEqual(['capture', 'hold']);
      expect(await ledger.sumOfAllBalances()).toBe(0n);
      // And the restarted process serves.
      const after = await fetch(`${server.baseUrl}/v1/compat/embeddings`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accounts[0]!.apiKey}`,
          'content-type': 'application/json',
          'user-agent': 'crash-test/1',
        },
        body: JSON.stringify({ model: 'text-embedding-3-small', input: 'after the crash' }),
      });
      expect(after.status).toBe(200);
    } finally {
      server?.child.kill('SIGKILL');
      await db.knex.destroy();
      await drop();
    }
  }, 120_000);
});

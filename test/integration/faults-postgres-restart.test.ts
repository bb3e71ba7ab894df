/**
 * PostgreSQL restarted under paid load (scale-out acceptance; docs/money.md): two real gateway processes on a
 * PostgreSQL server of this file's own (the machine's shared one is never restarted) serve paid chat calls while
 * the server is stopped and started again. While it is down, paid calls answer 503, `billing_temporarily_unavailable`
 * (the ledger is unreachable before any work: SPEC 7.2) or `not_ready` (the key store is unreachable once a key's
 * cached lookup is older than API_KEY_CACHE_TTL_MS), and /readyz answers 503; nothing is sent upstream for them. A
 * busy account's requests carved from its billing lease (money the ledger held before the outage) may still be
 * served; their charges wait in the charge journal. Once the server is back, the same processes serve paid calls
 * again, and the books show exactly the calls answered 200: the upstream saw those and no others, each has its usage
 * line, what left each balance is the sum of its lines, and nothing stays held.
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
import { call } from '../setup/harness.js';
import { pollUntil } from '../setup/polling.js';
import { type PrivatePostgres, postgresBinDir, startPrivatePostgres } from '../setup/private-postgres.js';
import { openAccounts, type ServerProcess, startServerProcess } from '../setup/server-process.js';
import { sleep } from '../setup/time.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const BIN = postgresBinDir();
const OPENING_MICROS = 20_000_000n;
/** Paid calls by an account that keeps both processes busy (it takes billing leases), per process. */
const BUSY_WORKERS = 3;
/** A light account's pace: under the 4 reservations a second that open a lease, so each of its calls holds. */
const LIGHT_PAUSE_MS = 400;
/** The outage lasts at least this long, so every path meets it (leases renew, journaled charges are retried). */
const MIN_OUTAGE_MS = 3_000;
const WAIT_MS = 30_000;

interface Answer {
  gateway: number;
  account: 'busy' | 'light';
  phase: 'before' | 'outage' | 'after';
  tag: string;
  status: number;
  code: string | null;
  requestId: string | null;
}

let pg: PrivatePostgres | undefined;
let fake: FakeUpstream | undefined;
let dir: string;
let gateways: ServerProcess[] = [];
let accounts: { accountId: string; apiKey: string }[] = [];

beforeAll(async () => {
  if (BIN === null) return;
  pg = await startPrivatePostgres(BIN);
  const db = connectDatabase(pg.url);
  try {
    await migrateToLatest(db);
    accounts = await openAccounts(db, 2, OPENING_MICROS);
  } finally {
    await db.knex.destroy();
  }
  // A little latency, so calls are in flight at every stage when the server goes away.
  fake = await startFakeUpstream({ behaviour: { slowFirstByteMs: 20 } });
  const upstreams = writeUpstreamsFile({
    'gpt-5-mini': [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 1 } }],
  });
  dir = mkdtempSync(join(tmpdir(), 'cgw-faults-pg-'));
  const env = (i: number, extra: Record<string, string>) => ({
    UPSTREAMS_FILE: upstreams,
    CHARGE_JOURNAL_DIR: join(dir, `journal-${i}`),
    CHARGE_RETRY_MS: '300',
    RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
    RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '1000000',
    ...extra,
  });
  // The default key cache (1 s), and a long one: while the database is down, the first refuses at the key store
  // (not_ready), the second gets as far as billing (billing_temporarily_unavailable).
  gateways = await Promise.all([
    startServerProcess(pg.url, env(0, {})),
    startServerProcess(pg.url, env(1, { API_KEY_CACHE_TTL_MS: '600000' })),
  ]);
}, 180_000);

afterAll(async () => {
  for (const g of gateways) g.child.kill('SIGKILL');
  await fake?.close();
  await pg?.destroy();
  removeUpstreamsFiles();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

/** Paid chat calls from both accounts on every gateway until `stop.now`; every answer is recorded with its phase. */
function load(answers: Answer[], phase: { now: Answer['phase'] }, stop: { now: boolean }): Promise<void> {
  let seq = 0;
  const worker = async (gateway: number, account: Answer['account']) => {
    const { apiKey } = accounts[account === 'busy' ? 0 : 1]!;
    while (!stop.now) {
      const tag = `call-${gateway}-${account}-${seq++}`;
      const startedIn = phase.now;
      const response = await call(gateways[gateway]!.baseUrl, 'POST', '/v1/compat/chat/completions', {
        key: apiKey,
        body: { model: 'gpt-5-mini', messages: [{ role: 'user', content: tag }], max_tokens: 50 },
      });
      const code = response.status === 200 ? null : (response.body?.error?.code ?? `unparsed: ${response.text}`);
      // A call that began before the outage and ended in it belongs to the outage: it met the server going away.
      const ph = startedIn === 'before' ? phase.now : startedIn;
      answers.push({
        gateway,
        account,
        phase: ph,
        tag,
        status: response.status,
        code,
        requestId: response.headers.get('x-request-id'),
      });
      if (account === 'light') await sleep(LIGHT_PAUSE_MS);
    }
  };
  const workers = gateways.flatMap((_, g) => [
    ...Array.from({ length: BUSY_WORKERS }, () => worker(g, 'busy')),
    worker(g, 'light'),
  ]);
  return Promise.all(workers).then(() => undefined);
}

const count = (answers: Answer[], match: Partial<Answer>) =>
  answers.filter((a) => Object.entries(match).every(([k, v]) => a[k as keyof Answer] === v)).length;

/** How many answers of each phase, process, account and outcome: shown when an expectation fails. */
function tally(answers: Answer[]): string {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const key = `${a.phase} gateway ${a.gateway} ${a.account}: ${a.status} ${a.code ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return JSON.stringify(counts, null, 1);
}

async function readiness(): Promise<number[]> {
  return Promise.all(gateways.map(async (g) => (await call(g.baseUrl, 'GET', '/readyz')).status));
}

/** Until nothing is held and what left each balance is its usage lines (leases idle out, journaled charges land). */
async function settledBooks(db: Database) {
  const ledger = openLedger(db);
  const usage = new SqlUsageLogStore(db);
  const read = () =>
    Promise.all(
      accounts.map(async ({ accountId }) => {
        const balance = await ledger.getBalance(accountId);
        const lines = (await usage.totals(accountId, {})).costMicros;
        return { accountId, held: balance.heldMicros, left: OPENING_MICROS - balance.availableMicros, lines };
      }),
    );
  return pollUntil(read, (books) => books.every((b) => b.held === 0n && b.left === b.lines), {
    withinMs: WAIT_MS,
    everyMs: 250,
  });
}

/** Load through the three phases: serving, the server stopped (until every path met it), the server back. */
async function throughRestart(answers: Answer[]): Promise<void> {
  const phase: { now: Answer['phase'] } = { now: 'before' };
  const stop = { now: false };
  const running = load(answers, phase, stop);
  const until = (done: (a: Answer[]) => boolean) =>
    pollUntil(async () => answers, done, { withinMs: WAIT_MS, everyMs: 50 });
  try {
    await until((a) => gateways.every((_, g) => count(a, { gateway: g, account: 'light', status: 200 }) >= 2));
    expect(await readiness()).toEqual([200, 200]);

    // Calls answered from here on may meet the server going away.
    phase.now = 'outage';
    await pg!.stop('fast');
    const outageStart = Date.now();
    const lightRefused = (a: Answer[], g: number) =>
      a.filter((x) => x.phase === 'outage' && x.gateway === g && x.account === 'light' && x.status === 503).length;
    await until((a) => Date.now() - outageStart >= MIN_OUTAGE_MS && gateways.every((_, g) => lightRefused(a, g) >= 3));
    const notReady = await Promise.all(gateways.map((g) => call(g.baseUrl, 'GET', '/readyz')));
    expect(notReady.map((r) => [r.status, r.body?.data?.error_code])).toEqual([
      [503, 'not_ready'],
      [503, 'not_ready'],
    ]);

    await pg!.start();
    phase.now = 'after';
    const recovered = (a: Answer[]) =>
      gateways.every((_, g) =>
        (['busy', 'light'] as const).every(
          (account) => count(a, { phase: 'after', gateway: g, account, status: 200 }) >= 3,
        ),
      );
    expect(recovered(await until(recovered)), tally(answers)).toBe(true);
    expect(await readiness()).toEqual([200, 200]);
  } finally {
    stop.now = true;
    await running;
  }
}

/** While it was down: 200 (money held before the outage) or a documented retryable 503; otherwise only 200s. */
function expectOutageAnswers(answers: Answer[]): void {
  const seen = tally(answers);
  const outage = answers.filter((a) => a.phase === 'outage');
  const refusals = ['billing_temporarily_unavailable', 'not_ready'];
  expect(
    outage.filter((a) => a.status !== 200 && !(a.status === 503 && refusals.includes(a.code ?? ''))),
    seen,
  ).toEqual([]);
  expect(
    answers.filter((a) => a.phase !== 'outage' && a.status !== 200),
    seen,
  ).toEqual([]);
  // The process with a long key cache got past the key store to billing, and billing refused.
  const billingRefused = count(outage, { gateway: 1, account: 'light', code: 'billing_temporarily_unavailable' });
  expect(billingRefused, seen).toBeGreaterThan(0);
  expect(count(outage, { gateway: 0, status: 503 }), seen).toBeGreaterThan(0);
}

/** The upstream saw exactly the calls answered 200, and the books charge exactly those, each once. */
async function expectOnlyServedBilled(served: Answer[]): Promise<void> {
  const upstreamSaw = fake!.requests.map((r) => (r.body as { messages: { content: string }[] }).messages[0]!.content);
  expect(new Set(upstreamSaw).size).toBe(upstreamSaw.length);
  expect(new Set(upstreamSaw)).toEqual(new Set(served.map((a) => a.tag)));
  const db = connectDatabase(pg!.url);
  try {
    const books = await settledBooks(db);
    for (const b of books) expect(b).toEqual({ ...b, held: 0n, left: b.lines });
    const rows = (await db.knex('usage_records').select('request_id')) as { request_id: string }[];
    const billed = rows.map((r) => r.request_id);
    expect(new Set(billed).size).toBe(billed.length);
    expect(new Set(billed)).toEqual(new Set(served.map((a) => a.requestId)));
    expect(await openLedger(db).sumOfAllBalances()).toBe(0n);
  } finally {
    await db.knex.destroy();
  }
}

describe.skipIf(BIN === null)(
  `PostgreSQL restarted under paid load${BIN === null ? ' (skipped: no PostgreSQL server binaries in /usr/lib/postgresql/*/bin; set TEST_POSTGRES_BIN)' : ''}`,
  () => {
    it('refuses paid calls with a 503 while it is down (serving nothing unpaid), and the same processes recover; the books show exactly the calls answered 200', async () => {
      const answers: Answer[] = [];
      await throughRestart(answers);
      // The same processes all along: none restarted.
      expect(gateways.map((g) => g.child.exitCode)).toEqual([null, null]);
      expectOutageAnswers(answers);
      await expectOnlyServedBilled(answers.filter((a) => a.status === 200));
    }, 120_000);
  },
);

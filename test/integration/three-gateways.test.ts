/**
 * Several processes, one truth (DESIGN.md 13; docs/money.md): three gateway processes on one PostgreSQL and one
 * Redis, behind a round-robin client, under paid load (chat, streams, embeddings, image jobs polled on other
 * processes than the one that took them, a GPU rental swept by all three). The balance never goes negative, every
 * answered call has exactly one usage line and what left the balance is those lines (and the rental's settlements),
 * every job runs and is charged once, a refused call costs nothing, and a key's rate limit holds across the three
 * as one window. Then kill -9 of one of them mid-load: the others keep serving, its holds and leases expire at
 * their TTL and nobody else's do, its jobs are taken over and charged once, and every answer received is billed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import type { FakeUpstream } from '../fixtures/fake-upstream.js';
import { ok, runAdmin } from '../setup/admin-cli.js';
import { accountLedger, GatewayFleet, holdsOf } from '../setup/gateway-fleet.js';
import { micros } from '../setup/money.js';
import { pollUntil } from '../setup/polling.js';
import { openAccounts } from '../setup/server-process.js';
import { jobBudgetsWithin } from '../setup/short-holds.js';
import { removeUpstreamsFiles } from '../setup/upstreams.js';
import {
  expectBooks,
  expectJobsChargedOnce,
  type Kind,
  Load,
  type Render,
  recordingUpstream,
  runningRental,
  runToEnd,
  total,
  untilJobsDone,
} from './three-gateways-load.js';

const HOLD_TTL_MS = 21_000;
const LEASE_TTL_MS = 5_000;
const RENDER_MS = 1_500;

let fake: FakeUpstream;
let fleet: GatewayFleet;
/** Every image render the upstream was asked for: by which process (its credential says), for which prompt, when. */
const renders: Render[] = [];

beforeAll(async () => {
  let upstreams: string;
  ({ fake, upstreams } = await recordingUpstream(renders, RENDER_MS));
  fleet = await GatewayFleet.start(3, {
    env: {
      UPSTREAMS_FILE: upstreams,
      // Short enough that a dead process's money is back within the test (src/config.ts: a hold outlives every
      // deadline and job budget; a lease lives at least 2 s).
      BILLING_HOLD_TTL_MS: String(HOLD_TTL_MS),
      BILLING_LEASE_TTL_MS: String(LEASE_TTL_MS),
      BILLING_LEASE_IDLE_MS: '1000',
      REQUEST_DEADLINE_MS: '10000',
      CHAT_JOB_BUDGET_MS: '10000',
      ...jobBudgetsWithin(10_000),
      IMAGE_JOB_BUDGET_MS: '20000',
      HOLD_SWEEP_MS: '250',
      JOB_LEASE_MS: '5000',
      JOB_CLAIM_MS: '200',
      RENTAL_SWEEP_MS: '1000',
      RATE_LIMIT_PER_KEY_PER_MINUTE: '1000000',
      RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '1000000',
      // A loaded machine's Redis is waited for: the limits under test hold across processes only through it.
      RATE_LIMIT_REDIS_TIMEOUT_MS: '5000',
    },
    envOf: (i) => ({ FLEET_UPSTREAM_KEY: `gateway-${i}` }),
  });
}, 180_000);

afterAll(async () => {
  await fleet?.close();
  await fake?.close();
  removeUpstreamsFiles();
}, 60_000);

/** The first case's load, run to its end: the answers, the jobs polled to their end, the rental removed, the books settled. */
async function mixedLoad(opening: bigint) {
  const [payer] = await openAccounts(fleet.db, 1, opening);
  const [provider] = await openAccounts(fleet.db, 1, 1_000_000n);
  const rental = await runningRental(fleet, payer!.apiKey, provider!.apiKey);
  const book = accountLedger(fleet.db, payer!.accountId);
  const lowest = { available: opening, held: 0n };
  const sampling = book.sample(lowest);
  const kinds: Kind[] = [
    ...Array<Kind>(8).fill('image'),
    ...Array<Kind>(80).fill('chat'),
    ...Array<Kind>(80).fill('stream'),
    ...Array<Kind>(30).fill('embeddings'),
  ].sort(() => Math.random() - 0.5);
  const sent = await runToEnd(fleet, payer!.apiKey, kinds, 12);
  const jobs = await untilJobsDone(fleet, payer!.apiKey, sent, 60_000);
  await rental.stop();
  const removed = await fleet.send('DELETE', `/v1/instances/${rental.taskId}`, { key: payer!.apiKey });
  expect(removed.status, removed.text).toBe(200);
  await sampling.stop();
  // Leases given back once idle, holds resolved: everything left is spent or available.
  const settled = await pollUntil(
    () => book.balance(),
    (b) => b.heldMicros === 0n,
    { withinMs: 30_000 },
  );
  expect(settled.heldMicros).toBe(0n);
  return {
    payer: payer!,
    provider: provider!,
    taskId: rental.taskId,
    removed: removed.body.data,
    book,
    lowest,
    settled,
    sent,
    jobs,
  };
}

/**
 * The rental, swept by three processes: each settlement posted once (`rental:<id>:<n>`), their sum what its running
 * time costs at its price, the provider paid its share of each. Answers what the renter was charged for it.
 */
async function expectRentalChargedOnce(run: Awaited<ReturnType<typeof mixedLoad>>): Promise<bigint> {
  const settlements = await run.book.rentalSettlements(run.taskId);
  const charged = total(settlements.map((s) => s.chargedMicros));
  expect(charged).toBeGreaterThan(0n);
  expect(charged).toBe(micros(run.removed.charged_usd));
  expect(charged).toBe((144_000n * BigInt(Math.round(run.removed.running_seconds * 1000))) / 3_600_000n);
  const posted = await run.book.rentalPosted(run.taskId);
  expect(posted.map((t) => t.id).sort()).toEqual(settlements.map((s) => `rental:${run.taskId}:${s.seq}`).sort());
  const earned = (await accountLedger(fleet.db, run.provider.accountId).balance()).availableMicros - 1_000_000n;
  expect(earned).toBe(total(settlements.map((s) => s.providerMicros ?? -1n)));
  return total(posted.map((t) => t.spendMicros));
}

/** Kills a process mid-load, once it has a stream under way and an image render it asked for moments ago. */
async function killMidLoad(apiKey: string, accountId: string) {
  const load = new Load(fleet, apiKey, 9);
  const victim = await pollUntil(
    async () => load.victim(renders, RENDER_MS / 3),
    (v) => v !== null && load.answered() >= 20,
    { withinMs: 60_000 },
  );
  expect(victim, 'no process had a stream and a render under way').not.toBeNull();
  const inFlightAtKill = load.inFlightOn(victim!);
  await fleet.kill(victim!);
  // Taken once it is gone: nothing it did can be later than this.
  const killAtMs = Date.now();
  const pendingAtKill = new Set(
    (await holdsOf(fleet.db, accountId)).filter((h) => h.status === 'pending').map((h) => h.id),
  );
  // Asked for less than a render ago: their answers were still to come when it died.
  const victimRenders = renders.filter((r) => r.server === victim && r.atMs > killAtMs - RENDER_MS / 2);
  await pollUntil(
    async () => load.answeredSince(killAtMs),
    (n) => n >= 30,
    { withinMs: 60_000 },
  );
  const sent = await load.stop();
  const jobs = await untilJobsDone(fleet, apiKey, sent, 60_000);
  return { victim: victim!, inFlightAtKill, killAtMs, pendingAtKill, victimRenders, sent, jobs };
}

/**
 * The dead process's holds and leases: nobody extended them after it died, they expired, nobody else's did, and the
 * account holds nothing any more. Answers the settled balance.
 */
async function expectDeadHoldsExpired(accountId: string, killed: Awaited<ReturnType<typeof killMidLoad>>) {
  const settled = await pollUntil(
    async () => ({
      balance: await accountLedger(fleet.db, accountId).balance(),
      holds: await holdsOf(fleet.db, accountId),
    }),
    ({ balance, holds }) => balance.heldMicros === 0n && !holds.some((h) => h.status === 'pending'),
    { withinMs: HOLD_TTL_MS + 30_000, everyMs: 250 },
  );
  expect(settled.balance.heldMicros).toBe(0n);
  const expired = settled.holds.filter((h) => h.status === 'expired');
  expect(expired.length).toBeGreaterThan(0);
  for (const hold of expired) {
    expect(killed.pendingAtKill.has(hold.id), `${hold.id} expired but was not held at the kill`).toBe(true);
    const ttl = hold.id.startsWith('lease:') ? LEASE_TTL_MS : HOLD_TTL_MS;
    expect(hold.expiresAtMs).toBeLessThanOrEqual(killed.killAtMs + ttl);
  }
  return settled.balance;
}

describe('three gateway processes, one PostgreSQL and one Redis', () => {
  it('paid mixed load that runs the balance out: never negative, every answer billed once, every job run and charged once, refusals free', async () => {
    // $0.15: the chats and streams alone cost more (160 at about $0.001), the image jobs $0.04 each.
    const opening = 150_000n;
    const run = await mixedLoad(opening);
    const { sent, jobs, settled } = run;
    // Answers: served (by all three), or refused for money, nothing else; the chats too ran out.
    const paid = sent.filter((s) => s.status === 200 || s.status === 202);
    const refused = sent.filter((s) => s.status === 402);
    expect(sent.filter((s) => !paid.includes(s) && !refused.includes(s))).toEqual([]);
    expect(paid.filter((s) => !s.whole)).toEqual([]);
    expect(new Set(paid.map((s) => s.server)).size).toBe(3);
    expect(refused.filter((s) => s.kind === 'chat' || s.kind === 'stream').length).toBeGreaterThan(0);
    for (const r of refused) expect(r.code).toBe('insufficient_balance');
    // Never negative, sampled all along and at the end, and run below the price of one image.
    expect(run.lowest.available).toBeGreaterThanOrEqual(0n);
    expect(run.lowest.held).toBeGreaterThanOrEqual(0n);
    expect(settled.availableMicros).toBeGreaterThanOrEqual(0n);
    expect(settled.availableMicros).toBeLessThan(40_000n);

    // Every 200 has exactly one usage line, every job one (by its id), and there is no line for anything else.
    const lines = await run.book.usageLines();
    const answered = paid.filter((s) => s.status === 200).map((s) => s.requestId!);
    expect(lines.map((l) => l.requestId).sort()).toEqual([...answered, ...jobs.map((j) => j.job_id)].sort());
    // A refusal left nothing: no line, no hold, no charge.
    const refusedIds = refused.map((r) => r.requestId!);
    expect(lines.filter((l) => refusedIds.includes(l.requestId))).toEqual([]);
    expect(await run.book.transfersNamed(refusedIds)).toEqual([]);

    // Every job ran once (one render) and was charged once; its image is served by every process (one secret, one
    // store), whichever rendered it.
    await expectJobsChargedOnce(fleet.db, run.payer.accountId, jobs, lines);
    for (const job of jobs) {
      expect(renders.filter((r) => r.prompt === job.prompt)).toHaveLength(1);
      const link = new URL(job.images[0].url);
      for (const server of fleet.servers) {
        const file = await fetch(server.baseUrl + link.pathname + link.search);
        const bytes = Buffer.from(await file.arrayBuffer());
        expect({ status: file.status, magic: bytes.subarray(1, 4).toString() }).toEqual({ status: 200, magic: 'PNG' });
      }
    }
    // No hold expired under work that went on.
    expect((await holdsOf(fleet.db, run.payer.accountId)).filter((h) => h.status === 'expired')).toEqual([]);
    const rentalMicros = await expectRentalChargedOnce(run);
    await expectBooks(fleet.db, run.payer.accountId, opening, settled.availableMicros, lines, rentalMicros);
  }, 180_000);

  it('a key limited to 20 a minute, 32 concurrent paid calls over the three: exactly 20 served, 12 refused 429, free', async () => {
    const [account] = await openAccounts(fleet.db, 1, 5_000_000n);
    const keyId = (await new SqlApiKeyStore(fleet.db).listKeys(account!.accountId))[0]!.id;
    ok(await runAdmin(fleet.databaseUrl, 'keys', 'limit', '--key-id', keyId, '--per-minute', '20'));
    const kinds = Array.from({ length: 32 }, (_, i): Kind => (['chat', 'stream', 'embeddings'] as const)[i % 3]!);
    const sent = await runToEnd(fleet, account!.apiKey, kinds, 32);
    const served = sent.filter((s) => s.status === 200);
    const limited = sent.filter((s) => s.status === 429);
    expect({ served: served.length, limited: limited.length }).toEqual({ served: 20, limited: 12 });
    for (const s of limited) expect(s.code).toBe('rate_limit_per_key');
    expect(served.every((s) => s.whole)).toBe(true);
    // 11 or 10 sent to each: both outcomes came from at least two processes, so the window is one window.
    expect(new Set(served.map((s) => s.server)).size).toBeGreaterThanOrEqual(2);
    expect(new Set(limited.map((s) => s.server)).size).toBeGreaterThanOrEqual(2);
    const lines = await accountLedger(fleet.db, account!.accountId).usageLines();
    expect(lines.map((l) => l.requestId).sort()).toEqual(served.map((s) => s.requestId).sort());
  }, 120_000);

  it('kill -9 of one mid-load: the others serve on, its holds expire at their TTL, its jobs are taken over and charged once, every answer billed', async () => {
    const opening = 5_000_000n;
    const [payer] = await openAccounts(fleet.db, 1, opening);
    const killed = await killMidLoad(payer!.apiKey, payer!.accountId);
    const { victim, killAtMs, sent, jobs } = killed;

    // The others kept serving, during and after the kill: every request they took was answered in full.
    const survivors = sent.filter((s) => s.server !== victim);
    expect(survivors.filter((s) => !(s.status === 200 || s.status === 202) || !s.whole)).toEqual([]);
    expect(survivors.filter((s) => s.startedAtMs > killAtMs).length).toBeGreaterThanOrEqual(30);
    // Its renders under way were taken over: rendered again by another process.
    expect(killed.victimRenders.length).toBeGreaterThan(0);
    for (const render of killed.victimRenders)
      expect(renders.some((r) => r.prompt === render.prompt && r.server !== victim && r.atMs > killAtMs)).toBe(true);

    const balance = await expectDeadHoldsExpired(payer!.accountId, killed);
    const lines = await accountLedger(fleet.db, payer!.accountId).usageLines();
    await expectJobsChargedOnce(fleet.db, payer!.accountId, jobs, lines);
    // Every answer received is billed once; a line without an answer can only be a request the kill cut off.
    const answered = sent.filter((s) => s.status === 200 && s.whole).map((s) => s.requestId!);
    const billed = lines.map((l) => l.requestId);
    expect(answered.filter((id) => billed.filter((b) => b === id).length !== 1)).toEqual([]);
    expect(billed.length).toBeGreaterThanOrEqual(answered.length + jobs.length);
    expect(billed.length - answered.length - jobs.length).toBeLessThanOrEqual(killed.inFlightAtKill);
    await expectBooks(fleet.db, payer!.accountId, opening, balance.availableMicros, lines);
    // And the survivors still serve.
    for (const server of fleet.alive) {
      const after = await fleet.send('POST', '/v1/compat/embeddings', {
        key: payer!.apiKey,
        body: { model: 'text-embedding-3-small', input: 'after the kill' },
        server,
      });
      expect(after.status, after.text).toBe(200);
    }
  }, 180_000);
});

/**
 * The billing flows (src/domain/billing.ts) over the real ledger and usage log, on SQLite and PostgreSQL:
 * concurrency never overdraws, usage adds up to the ledger to the micro-dollar, ruble costs follow the lots, a
 * cost above the hold is capped and reported as the platform's loss, a charge the ledger cannot take is journaled
 * and lands exactly once later, and an unreachable ledger refuses work with 503 before anything is done.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import type { Database } from '../../src/db/connect.js';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { MemoryChargeJournal } from '../../src/adapters/charge-journal/memory.js';
import type { Ledger } from '../../src/adapters/ledger/index.js';
import { openLedger } from '../../src/adapters/ledger/open.js';
import { SqlUsageLogStore } from '../../src/adapters/usage-log/sql.js';
import { createAccount, issueKey } from '../../src/domain/accounts.js';
import type { Principal } from '../../src/domain/authenticator.js';
import { Billing, type LossReport } from '../../src/domain/billing.js';
import { retryJournaledCharges } from '../../src/domain/charge-retrier.js';
import { fxRateToMicro, usdToMicros } from '../../src/domain/money.js';
import { topUp } from '../../src/domain/top-up.js';
import { ApiError } from '../../src/errors/api-error.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';

const MARKET = fxRateToMicro(90);
const backends = [
  { name: 'SQLite', open: async () => ({ db: await sqliteMemory(), drop: async (db: Database) => db.knex.destroy() }) },
  {
    name: 'PostgreSQL',
    open: async () => {
      const pg = await postgresSchema();
      return { db: pg.db, drop: async () => pg.drop() };
    },
  },
];

describe.each(backends)('billing flows on $name', ({ open }) => {
  let db: Database;
  let drop: (db: Database) => Promise<void>;
  let now = Date.parse('2026-11-20T10:00:00Z');
  let apiKeys: SqlApiKeyStore;
  let ledger: Ledger;
  let usageLog: SqlUsageLogStore;
  let journal: MemoryChargeJournal;
  let losses: LossReport[];
  let billing: Billing;

  beforeEach(async () => {
    ({ db, drop } = await open());
    apiKeys = new SqlApiKeyStore(db);
    ledger = openLedger(db);
    usageLog = new SqlUsageLogStore(db);
    journal = new MemoryChargeJournal();
    losses = [];
    billing = new Billing(ledger, { now: () => now, holdTtlMs: 60_000, logger: pino({ level: 'silent' }), journal, onLoss: (r) => losses.push(r) });
  });
  afterEach(async () => {
    await drop(db).catch(() => undefined);
  });

  async function principal(balanceUsd: number, lots: { usd: number; fxRate?: number }[] = [], rubBilling = false): Promise<Principal> {
    const account = await createAccount(apiKeys, { email: `p${Math.random()}@example.com` });
    const { record } = await issueKey(apiKeys, account.id);
    const opening: { usd: number; fxRate?: number }[] = balanceUsd > 0 ? [{ usd: balanceUsd }] : [];
    for (const lot of [...opening, ...lots]) {
      await topUp(ledger, apiKeys, {
        accountId: account.id,
        usdMicros: usdToMicros(lot.usd),
        ...(lot.fxRate === undefined ? {} : { rub: { fxRateRubMicro: fxRateToMicro(lot.fxRate) } }),
        marketRateMicro: MARKET,
        nowMs: now++,
      });
    }
    return { accountId: account.id, keyId: record.id, account: { ...account, rubBilling }, keyRateLimitPerMinute: null };
  }

  it('200 concurrent $0.01 reservations on $0.50: exactly 50 pass, the rest are 402 insufficient_balance', async () => {
    const p = await principal(0.5);
    const outcomes = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => billing.reserve(p, `req_c${i}`, 10_000n)));
    const passed = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(passed).toHaveLength(50);
    expect(refused.every((o) => o.reason instanceof ApiError && o.reason.code === 'insufficient_balance')).toBe(true);
    expect(await ledger.getBalance(p.accountId)).toMatchObject({ availableMicros: 0n, heldMicros: 500_000n });
  });

  it('usage totals equal the ledger’s posted spend to the micro-dollar after concurrent calls', async () => {
    const p = await principal(5);
    const costs = Array.from({ length: 60 }, (_, i) => BigInt(1 + ((i * 7919) % 40_000)));
    await Promise.all(
      costs.map(async (cost, i) => {
        const reservation = await billing.reserve(p, `req_u${i}`, 50_000n);
        if (i % 10 === 9) return billing.release(reservation); // failed calls cost nothing and log nothing
        return billing.settle(reservation, cost, { model: i % 2 ? 'gpt-5-mini' : 'text-embedding-3-small', kind: i % 2 ? 'chat' : 'embedding', endpoint: '/x' });
      }),
    );
    await billing.drain();
    const charged = costs.filter((_, i) => i % 10 !== 9).reduce((a, b) => a + b, 0n);
    const totals = await usageLog.totals(p.accountId, {});
    expect(totals.costMicros).toBe(charged);
    expect(await ledger.postedSpend(p.accountId)).toBe(charged);
    expect(totals.requests).toBe(54);
    expect((await ledger.getBalance(p.accountId)).availableMicros).toBe(5_000_000n - charged);
  });

  it('ruble billing: cost_rub follows the oldest lot and switches exactly when it runs out', async () => {
    const p = await principal(0, [{ usd: 1, fxRate: 90 }, { usd: 1, fxRate: 100 }], true);
    const rub: (bigint | null)[] = [];
    for (let i = 0; i < 5; i++) {
      now += 1000;
      const reservation = await billing.reserve(p, `req_r${i}`, 400_000n);
      rub.push((await billing.settle(reservation, 300_000n, { model: 'gpt-5-mini', kind: 'chat', endpoint: '/x' })).costRubMicro);
    }
    // $0.30 a call: calls 1-3 from the $1 lot at 90, call 4 takes its last $0.10 at 90 and $0.20 at 100.
    expect(rub).toEqual([27_000_000n, 27_000_000n, 27_000_000n, 9_000_000n + 20_000_000n, 30_000_000n]);
    const records = await usageLog.list(p.accountId, {}, { limit: 10, offset: 0 });
    expect(records.map((r) => r.costRubMicro).reverse()).toEqual(rub);
    expect(records.every((r) => r.billedInRub)).toBe(true);
  });

  it('never charges beyond the hold (the rest is a reported loss), and a settle after expiry still charges once', async () => {
    const p = await principal(1);
    const over = await billing.reserve(p, 'req_over', 100_000n);
    expect((await billing.settle(over, 150_000n, { model: 'm', kind: 'chat', endpoint: '/x' })).costMicros).toBe(100_000n);
    await billing.settled(p.accountId);
    expect(losses).toEqual([{ requestId: 'req_over', model: 'm', lossMicros: 50_000n }]);
    const late = await billing.reserve(p, 'req_late', 100_000n);
    now += 61_000;
    expect(await ledger.expireHolds(now)).toBe(1);
    expect((await billing.settle(late, 80_000n, { model: 'm', kind: 'chat', endpoint: '/x' })).costMicros).toBe(80_000n);
    await billing.settled(p.accountId);
    expect(await ledger.postedSpend(p.accountId)).toBe(180_000n);
    expect((await ledger.getBalance(p.accountId)).availableMicros).toBe(820_000n);
    const lines = await usageLog.list(p.accountId, {}, { limit: 10, offset: 0 });
    expect(lines.map((l) => [l.requestId, l.costMicros, l.transferId])).toEqual([
      ['req_late', 80_000n, 'late:req_late'],
      ['req_over', 100_000n, 'hold:req_over'],
    ]);
  });

  it('journals a charge the ledger cannot take and posts it exactly once when it can', async () => {
    const p = await principal(1);
    const reservation = await billing.reserve(p, 'req_journal', 100_000n);
    await db.knex.schema.renameTable('usage_records', 'usage_records_away'); // the charge's transaction cannot commit
    try {
      expect((await billing.settle(reservation, 60_000n, { model: 'm', kind: 'chat', endpoint: '/x' })).costMicros).toBe(60_000n);
      await billing.settled(p.accountId);
      expect((await journal.list()).map((c) => c.holdId)).toEqual(['hold:req_journal']);
      await expect(retryJournaledCharges(journal, billing)).rejects.toThrow();
    } finally {
      await db.knex.schema.renameTable('usage_records_away', 'usage_records');
    }
    expect(await ledger.getBalance(p.accountId)).toMatchObject({ availableMicros: 900_000n, heldMicros: 100_000n });
    expect(await retryJournaledCharges(journal, billing)).toBe(1);
    expect(await retryJournaledCharges(journal, billing)).toBe(0);
    expect(await ledger.getBalance(p.accountId)).toMatchObject({ availableMicros: 940_000n, heldMicros: 0n });
    expect((await usageLog.list(p.accountId, {}, { limit: 10, offset: 0 })).map((l) => l.costMicros)).toEqual([60_000n]);
  });

  it('an unreachable ledger refuses the request with 503 billing_temporarily_unavailable', async () => {
    const p = await principal(1);
    await db.knex.destroy();
    const refusal = await billing.reserve(p, 'req_down', 1000n).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).code).toBe('billing_temporarily_unavailable');
    expect((refusal as ApiError).status).toBe(503);
  });
});

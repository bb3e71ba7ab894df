/**
 * The billing flows (src/domain/billing/billing.ts) over the real ledger and usage log, on SQLite and PostgreSQL:
 * concurrency never overdraws, usage adds up to the ledger to the micro-dollar, ruble costs follow the lots, a
 * cost above the hold is capped and reported as the platform's loss, a charge the ledger cannot take is journaled
 * and lands exactly once later, and an unreachable ledger refuses work with 503 before anything is done.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Billing } from '../../src/domain/billing/billing.js';
import { retryJournaledCharges } from '../../src/domain/billing/charge-retrier.js';
import { ApiError } from '../../src/errors/api-error.js';
import { BILLING_BACKENDS, type BillingWorld, openBillingWorld } from '../setup/billing.js';

describe.each(BILLING_BACKENDS)('billing flows on $name', (backend) => {
  let w: BillingWorld;
  let billing: Billing;
  beforeEach(async () => {
    w = await openBillingWorld(backend, Date.parse('2026-11-20T10:00:00Z'));
    billing = w.billing(60_000);
  });
  afterEach(() => w.close());

  it('200 concurrent $0.01 reservations on $0.50: exactly 50 pass, the rest are 402 insufficient_balance', async () => {
    const p = await w.principal(0.5);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => billing.reserve(p, `req_c${i}`, 10_000n)),
    );
    const passed = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(passed).toHaveLength(50);
    expect(refused.every((o) => o.reason instanceof ApiError && o.reason.code === 'insufficient_balance')).toBe(true);
    expect(await w.ledger.getBalance(p.accountId)).toMatchObject({ availableMicros: 0n, heldMicros: 500_000n });
  });

  it('usage totals equal the ledger’s posted spend to the micro-dollar after concurrent calls', async () => {
    const p = await w.principal(5);
    const costs = Array.from({ length: 60 }, (_, i) => BigInt(1 + ((i * 7919) % 40_000)));
    await Promise.all(
      costs.map(async (cost, i) => {
        const reservation = await billing.reserve(p, `req_u${i}`, 50_000n);
        if (i % 10 === 9) return billing.release(reservation); // failed calls cost nothing and log nothing
        return billing.settle(reservation, cost, {
          model: i % 2 ? 'gpt-5-mini' : 'text-embedding-3-small',
          kind: i % 2 ? 'chat' : 'embedding',
          endpoint: '/x',
        });
      }),
    );
    await billing.drain();
    const charged = costs.filter((_, i) => i % 10 !== 9).reduce((a, b) => a + b, 0n);
    const totals = await w.usageLog.totals(p.accountId, {});
    expect(totals.costMicros).toBe(charged);
    expect(await w.ledger.postedSpend(p.accountId)).toBe(charged);
    expect(totals.requests).toBe(54);
    expect((await w.ledger.getBalance(p.accountId)).availableMicros).toBe(5_000_000n - charged);
  });

  it('ruble billing: cost_rub follows the oldest lot and switches exactly when it runs out', async () => {
    const p = await w.principal(
      0,
      [
        { usd: 1, fxRate: 90 },
        { usd: 1, fxRate: 100 },
      ],
      true,
    );
    const rub: (bigint | null)[] = [];
    for (let i = 0; i < 5; i++) {
      w.clock.now += 1000;
      const reservation = await billing.reserve(p, `req_r${i}`, 400_000n);
      rub.push(
        (await billing.settle(reservation, 300_000n, { model: 'gpt-5-mini', kind: 'chat', endpoint: '/x' }))
          .costRubMicro,
      );
    }
    // $0.30 a call: calls 1-3 from the $1 lot at 90, call 4 takes its last $0.10 at 90 and $0.20 at 100.
    expect(rub).toEqual([27_000_000n, 27_000_000n, 27_000_000n, 9_000_000n + 20_000_000n, 30_000_000n]);
    const records = await w.usageLog.list(p.accountId, {}, { limit: 10, offset: 0 });
    expect(records.map((r) => r.costRubMicro).reverse()).toEqual(rub);
    expect(records.every((r) => r.billedInRub)).toBe(true);
  });

  it('never charges beyond the hold (the rest is a reported loss), and a settle after expiry still charges once', async () => {
    const p = await w.principal(1);
    const over = await billing.reserve(p, 'req_over', 100_000n);
    expect((await billing.settle(over, 150_000n, { model: 'm', kind: 'chat', endpoint: '/x' })).costMicros).toBe(
      100_000n,
    );
    await billing.settled(p.accountId);
    expect(w.losses).toEqual([{ requestId: 'req_over', model: 'm', lossMicros: 50_000n }]);
    const late = await billing.reserve(p, 'req_late', 100_000n);
    w.clock.now += 61_000;
    expect(await w.ledger.expireHolds(w.clock.now)).toBe(1);
    expect((await billing.settle(late, 80_000n, { model: 'm', kind: 'chat', endpoint: '/x' })).costMicros).toBe(
      80_000n,
    );
    await billing.settled(p.accountId);
    expect(await w.ledger.postedSpend(p.accountId)).toBe(180_000n);
    expect((await w.ledger.getBalance(p.accountId)).availableMicros).toBe(820_000n);
    const lines = await w.usageLog.list(p.accountId, {}, { limit: 10, offset: 0 });
    expect(lines.map((l) => [l.requestId, l.costMicros, l.transferId])).toEqual([
      ['req_late', 80_000n, 'late:req_late'],
      ['req_over', 100_000n, 'hold:req_over'],
    ]);
  });

  it('journals a charge the ledger cannot take and posts it exactly once when it can', async () => {
    const p = await w.principal(1);
    const reservation = await billing.reserve(p, 'req_journal', 100_000n);
    await w.db.knex.schema.renameTable('usage_records', 'usage_records_away'); // the charge's transaction cannot commit
    try {
      expect(
        (await billing.settle(reservation, 60_000n, { model: 'm', kind: 'chat', endpoint: '/x' })).costMicros,
      ).toBe(60_000n);
      await billing.settled(p.accountId);
      expect((await w.journal.list()).map((c) => c.holdId)).toEqual(['hold:req_journal']);
      await expect(retryJournaledCharges(w.journal, billing)).rejects.toThrow();
    } finally {
      await w.db.knex.schema.renameTable('usage_records_away', 'usage_records');
    }
    expect(await w.ledger.getBalance(p.accountId)).toMatchObject({ availableMicros: 900_000n, heldMicros: 100_000n });
    expect(await retryJournaledCharges(w.journal, billing)).toBe(1);
    expect(await retryJournaledCharges(w.journal, billing)).toBe(0);
    expect(await w.ledger.getBalance(p.accountId)).toMatchObject({ availableMicros: 940_000n, heldMicros: 0n });
    expect((await w.usageLog.list(p.accountId, {}, { limit: 10, offset: 0 })).map((l) => l.costMicros)).toEqual([
      60_000n,
    ]);
  });

  it('an unreachable ledger refuses the request with 503 billing_temporarily_unavailable', async () => {
    const p = await w.principal(1);
    await w.db.knex.destroy();
    const refusal = await billing.reserve(p, 'req_down', 1000n).catch((err: unknown) => err);
    expect(refusal).toBeInstanceOf(ApiError);
    expect((refusal as ApiError).code).toBe('billing_temporarily_unavailable');
    expect((refusal as ApiError).status).toBe(503);
  });
});

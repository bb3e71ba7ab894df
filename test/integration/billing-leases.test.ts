/**
 * Reserving in bulk (src/domain/billing/billing-leases.ts) over the real ledger, on SQLite and PostgreSQL: a busy account's
 * requests reserve from a lease with no ledger write of their own, each charge is still a capture with its usage
 * line and capped at its reservation, idle leases are given back, leases in use are renewed, a dead process's lease
 * expires, two processes leasing one account never overdraw it, and a request refused for funds gets back the
 * money this process had leased.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Billing, Reservation } from '../../src/domain/billing/billing.js';
import { leaseSize } from '../../src/domain/billing/billing-leases.js';
import { retryJournaledCharges } from '../../src/domain/billing/charge-retrier.js';
import type { Principal } from '../../src/domain/keys/authenticator.js';
import { ApiError } from '../../src/errors/api-error.js';
import { BILLING_BACKENDS, type BillingWorld, LEASES, openBillingWorld, reserveUntilLeased } from '../setup/billing.js';

const CALL = { model: 'm', kind: 'chat' as const, endpoint: '/x' };

describe('leaseSize', () => {
  it('reserves ten seconds of recent demand, within an eighth of what is available and the maximum', () => {
    expect(leaseSize(80_000_000n, 1_000n, 50_000n, 1_000_000n)).toBe(500_000n);
    expect(leaseSize(80_000_000n, 1_000n, 500_000n, 1_000_000n)).toBe(1_000_000n);
    expect(leaseSize(2_000_000n, 1_000n, 500_000n, 1_000_000n)).toBe(250_000n);
    // Never less than sixteen reservations of the current size; none at all when that does not fit.
    expect(leaseSize(80_000_000n, 1_000n, 100n, 1_000_000n)).toBe(16_000n);
    expect(leaseSize(100_000n, 1_000n, 100_000n, 1_000_000n)).toBeNull();
    expect(leaseSize(80_000_000n, 1_000n, 100_000n, 0n)).toBeNull();
  });
});

describe.each(BILLING_BACKENDS)('billing leases on $name', (backend) => {
  let w: BillingWorld;
  let billing: Billing;
  /** Another gateway process on the same database. */
  const billingProcess = () => w.billing(600_000);
  beforeEach(async () => {
    w = await openBillingWorld(backend, Date.parse('2026-11-21T10:00:00Z'));
    billing = billingProcess();
  });
  afterEach(() => w.close());

  async function principal(usd: number): Promise<Principal> {
    w.clock.now += 10;
    return w.principal(usd);
  }

  /** A reservation from a lease: the account made busy (reserveUntilLeased). */
  const warmedUp = (p: Principal, amountMicros: bigint, via = billing): Promise<Reservation> =>
    reserveUntilLeased(via, w.ledger, p, amountMicros);

  const pendingLeases = async (accountId: string) =>
    (
      await w.db
        .knex('ledger_transfers')
        .where({ account_id: accountId, status: 'pending' })
        .andWhereLike('id', 'lease:%')
        .select('id', 'amount_micros')
    ).map((row: { id: string; amount_micros: unknown }) => ({
      id: row.id,
      amountMicros: BigInt(row.amount_micros as bigint),
    }));

  it('reserves from a lease once the account is busy: no hold per request, each charge a capture with its usage line', async () => {
    const p = await principal(10);
    const first = await warmedUp(p, 1_000n);
    expect(first.holdId).toMatch(/^lease:/);
    const [lease] = await pendingLeases(p.accountId);
    expect(lease?.id).toBe(first.holdId);
    const size = lease!.amountMicros;
    const reservations = [
      first,
      ...(await Promise.all(Array.from({ length: 20 }, (_, i) => billing.reserve(p, `req_l${i}`, 1_000n)))),
    ];
    expect(reservations.every((r) => r.holdId === first.holdId)).toBe(true);
    const charges = await Promise.all(reservations.map((r, i) => billing.settle(r, BigInt(100 + i), CALL)));
    expect(charges.map((c) => c.costMicros)).toEqual(reservations.map((_, i) => BigInt(100 + i)));
    await billing.drain();
    const charged = reservations.reduce((sum, _, i) => sum + BigInt(100 + i), 0n);
    expect(await pendingLeases(p.accountId)).toEqual([{ id: first.holdId, amountMicros: size - charged }]);
    expect(await w.ledger.getTransfer(`charge:${reservations[3]!.requestId}`)).toMatchObject({
      kind: 'capture',
      holdId: first.holdId,
      postedMicros: 103n,
    });
    const lines = await w.usageLog.list(p.accountId, {}, { limit: 100, offset: 0 });
    expect(lines.filter((l) => l.transferId?.startsWith('charge:'))).toHaveLength(21);
    expect((await w.usageLog.totals(p.accountId, {})).costMicros).toBe(await w.ledger.postedSpend(p.accountId));
    const balance = await w.ledger.getBalance(p.accountId);
    expect(balance.availableMicros + balance.heldMicros).toBe(10_000_000n - charged);
  });

  it('the floor check before counting (issue 23): a leased account passes in memory, others on one balance read, a $0 one is refused', async () => {
    const busy = await principal(10);
    const lease = await warmedUp(busy, 1_000n);
    const reads = vi.spyOn(w.ledger, 'getBalance');
    const holds = vi.spyOn(w.ledger, 'hold');
    await billing.assertCanPay(busy, 1_000n);
    expect(reads).not.toHaveBeenCalled();
    const idle = await principal(1);
    await billing.assertCanPay(idle, 1_000_000n);
    expect(reads).toHaveBeenCalledTimes(1);
    const broke = await principal(0);
    await expect(billing.assertCanPay(broke, 1n)).rejects.toMatchObject({ code: 'insufficient_balance' });
    await expect(billing.assertCanPay(idle, 1_000_001n)).rejects.toMatchObject({
      code: 'insufficient_balance',
      meta: { required_usd: 1.000001, available_usd: 1 },
    });
    expect(holds).not.toHaveBeenCalled(); // a check, never a write
    await billing.settle(lease, 0n, CALL);
  });

  it('caps a leased charge at its reservation and reports the rest as the platform’s loss', async () => {
    const p = await principal(10);
    const r = await warmedUp(p, 2_000n);
    expect((await billing.settle(r, 5_000n, CALL)).costMicros).toBe(2_000n);
    await billing.drain();
    expect(w.losses).toEqual([{ requestId: r.requestId, model: 'm', lossMicros: 3_000n }]);
    expect(await w.ledger.getTransfer(`charge:${r.requestId}`)).toMatchObject({
      amountMicros: 5_000n,
      postedMicros: 2_000n,
    });
  });

  it('gives an idle lease back, renews one in use, and a dead process’s lease expires', async () => {
    const p = await principal(10);
    const held = await warmedUp(p, 1_000n);
    // In use (a reservation outstanding) past half its life: renewed, so a charge after the first expiry still lands.
    w.clock.now += LEASES.ttlMs / 2 + 1;
    await billing.tickLeases();
    w.clock.now += LEASES.ttlMs / 2;
    await billing.settle(held, 700n, CALL);
    await billing.drain();
    expect(await w.ledger.getTransfer(`charge:${held.requestId}`)).toMatchObject({ postedMicros: 700n });
    // Unused for the idle time: given back whole.
    w.clock.now += LEASES.idleMs;
    await billing.tickLeases();
    await w.ledger.drain();
    expect(await pendingLeases(p.accountId)).toEqual([]);
    expect(await w.ledger.getBalance(p.accountId)).toMatchObject({ heldMicros: 0n });

    // A process that dies with a lease: nothing gives it back, so it expires with its time.
    const dying = billingProcess();
    await warmedUp(p, 1_000n, dying);
    expect(await pendingLeases(p.accountId)).toHaveLength(1);
    w.clock.now += LEASES.ttlMs;
    await w.ledger.expireHolds(w.clock.now);
    expect(await pendingLeases(p.accountId)).toEqual([]);
    expect(await w.ledger.getBalance(p.accountId)).toMatchObject({ heldMicros: 0n });
  });

  it('two processes leasing one account never overdraw it, and usage adds up to what left the balance', async () => {
    const p = await principal(2);
    const processes = [billing, billingProcess()];
    let served = 0n;
    let refused = 0;
    let leased = 0;
    await Promise.all(
      processes.map(async (proc, n) => {
        for (let i = 0; i < 300; i++) {
          const reserved = await proc.reserve(p, `req_p${n}_${i}`, 5_000n).catch((err: unknown) => err);
          if (reserved instanceof ApiError) {
            expect(reserved.code).toBe('insufficient_balance');
            refused++;
            continue;
          }
          if ((reserved as Reservation).lease !== null) leased++;
          const charge = await proc.settle(reserved as Reservation, 5_000n, CALL);
          served += charge.costMicros;
        }
      }),
    );
    await Promise.all(processes.map((proc) => proc.close()));
    expect(leased).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(0);
    expect(await pendingLeases(p.accountId)).toEqual([]);
    expect(await w.ledger.getBalance(p.accountId)).toEqual({
      accountId: p.accountId,
      availableMicros: 2_000_000n - served,
      heldMicros: 0n,
    });
    expect((await w.usageLog.totals(p.accountId, {})).costMicros).toBe(served);
  });

  it('gives back its idle leased money to a request that needs it, instead of refusing it', async () => {
    const p = await principal(1);
    const r = await warmedUp(p, 1_000n);
    await billing.settle(r, 1_000n, CALL);
    await billing.drain();
    expect(await pendingLeases(p.accountId)).toHaveLength(1);
    const { availableMicros } = await w.ledger.getBalance(p.accountId);
    const big = await billing.reserve(p, 'req_big', availableMicros + 1n);
    expect(big.lease).toBeNull();
    expect(await pendingLeases(p.accountId)).toEqual([]);
    await billing.release(big);
  });

  it('journals a leased charge the ledger cannot take and captures it exactly once later', async () => {
    const p = await principal(10);
    const r = await warmedUp(p, 10_000n);
    await w.db.knex.schema.renameTable('usage_records', 'usage_records_away');
    try {
      expect((await billing.settle(r, 6_000n, CALL)).costMicros).toBe(6_000n);
      await billing.settled(p.accountId);
      expect(await w.journal.list()).toMatchObject([{ requestId: r.requestId, holdId: r.holdId, capMicros: 10_000n }]);
    } finally {
      await w.db.knex.schema.renameTable('usage_records_away', 'usage_records');
    }
    expect(await retryJournaledCharges(w.journal, billing)).toBe(1);
    expect(await retryJournaledCharges(w.journal, billing)).toBe(0);
    expect(
      (await w.usageLog.list(p.accountId, {}, { limit: 20, offset: 0 })).filter((l) => l.requestId === r.requestId),
    ).toHaveLength(1);
    expect(await w.ledger.getTransfer(`charge:${r.requestId}`)).toMatchObject({ postedMicros: 6_000n });
  });
});

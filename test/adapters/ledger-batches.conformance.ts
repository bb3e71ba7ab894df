/**
 * The ledger conformance cases of ledger v2 (src/adapters/ledger/README.md): usage lines written with their
 * charges, the hold as a ceiling (losses), shortfalls, extension, and group commit. Registered inside each
 * engine's suite by ledger.conformance.ts, which owns the subject, the accounts and the after-each invariants.
 */
import { describe, expect, it } from 'vitest';
import type { HoldOutcome, Micros, Payee } from '../../src/adapters/ledger/index.js';
import { SYSTEM_ACCOUNTS } from '../../src/adapters/ledger/index.js';
import type { OpOutcome } from '../../src/adapters/ledger/operations.js';
import { newId } from '../../src/lib/ids.js';
import type { LedgerSuite } from './ledger.conformance.js';
import { DAY, line, ok, RUB_90, RUB_100, T0, YEAR_MS } from './ledger-fixtures.js';

export function ledgerBatchCases({ subject, account, batches }: LedgerSuite): void {
  const ledger = () => subject().ledger;
  const hold = (accountId: string, amountMicros: Micros, id = newId('hold'), ttlMs = YEAR_MS) =>
    ledger().hold({ id, accountId, amountMicros, nowMs: T0, ttlMs });
  const usageOf = async (accountId: string) => subject().usage.list(accountId, {}, { limit: 100, offset: 0 });

  describe('usage lines', () => {
    it('writes the line with the settle that posts it, completed from the posting, and never again on a replay', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const h = ok(await hold(accountId, 40_000n)).hold;
      const usage = line();
      const settled = ok(await ledger().settle({ holdId: h.id, amountMicros: 25_000n, nowMs: T0 + 10, usage }));
      const stored = {
        ...usage,
        accountId,
        transferId: h.id,
        costMicros: 25_000n,
        costRubMicro: null,
        fxRateRubMicro: null,
      };
      expect(settled.usage).toEqual(stored);
      expect(
        ok(await ledger().settle({ holdId: h.id, amountMicros: 25_000n, nowMs: T0 + 11, usage: line() })).usage,
      ).toBeNull();
      expect(await usageOf(accountId)).toEqual([stored]);
      expect(await subject().usage.totals(accountId, {})).toMatchObject({ requests: 1, costMicros: 25_000n });
      expect(await subject().usage.daily(accountId, { fromDay: DAY, toDay: DAY })).toEqual([
        expect.objectContaining({ requests: 1, costMicros: 25_000n }),
      ]);
      expect(await ledger().postedSpend(accountId)).toBe(25_000n);
    });

    it('prices a ruble-billed line exactly from the lots that paid, across two top-ups', async () => {
      const { accountId } = await account([10_000n, RUB_90], [50_000n, RUB_100]);
      const charged = ok(
        await ledger().debit({
          id: newId('chg'),
          accountId,
          amountMicros: 16_000n,
          nowMs: T0 + 10,
          usage: line({ billedInRub: true }),
        }),
      );
      // 10_000 at 90 + 6_000 at 100 micro-USD → 900_000 + 600_000 micro-RUB; the effective rate is 93.75.
      expect(charged.usage).toMatchObject({
        costMicros: 16_000n,
        costRubMicro: 1_500_000n,
        fxRateRubMicro: 93_750_000n,
        transferId: charged.transfer.id,
      });
      expect(await usageOf(accountId)).toEqual([charged.usage]);
    });

    it('records a call that cost nothing, and nothing for a debit refused for lack of money', async () => {
      const { accountId } = await account([1_000n, RUB_90]);
      const free = ok(
        await ledger().debit({
          id: newId('chg'),
          accountId,
          amountMicros: 0n,
          nowMs: T0 + 10,
          usage: line({ model: 'free/one' }),
        }),
      );
      expect(free.usage).toMatchObject({ costMicros: 0n, model: 'free/one' });
      const refused = await ledger().debit({
        id: newId('chg'),
        accountId,
        amountMicros: 2_000n,
        nowMs: T0 + 10,
        usage: line({ model: 'dear/one' }),
      });
      expect(refused).toEqual({ ok: false, reason: 'insufficient_balance', availableMicros: 1_000n });
      expect((await usageOf(accountId)).map((u) => u.model)).toEqual(['free/one']);
    });
  });

  describe('a hold is a ceiling', () => {
    it('posts at most the hold and the rest as the platform loss, in the same write', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const h = ok(await hold(accountId, 40_000n)).hold;
      const revenueBefore = (await ledger().getBalance(SYSTEM_ACCOUNTS.revenue)).availableMicros;
      const lossesBefore = (await ledger().getBalance(SYSTEM_ACCOUNTS.losses)).availableMicros;
      const settled = ok(await ledger().settle({ holdId: h.id, amountMicros: 55_000n, nowMs: T0 + 10, usage: line() }));
      expect(settled).toMatchObject({
        hold: { postedMicros: 40_000n },
        lossMicros: 15_000n,
        usage: { costMicros: 40_000n },
      });
      expect(await ledger().getTransfer(`loss:${h.id}`)).toMatchObject({
        kind: 'loss',
        accountId: SYSTEM_ACCOUNTS.losses,
        amountMicros: 15_000n,
        postedMicros: 15_000n,
      });
      expect((await ledger().getBalance(accountId)).availableMicros).toBe(60_000n);
      expect((await ledger().getBalance(SYSTEM_ACCOUNTS.revenue)).availableMicros - revenueBefore).toBe(55_000n);
      expect((await ledger().getBalance(SYSTEM_ACCOUNTS.losses)).availableMicros - lossesBefore).toBe(-15_000n);
      expect(await ledger().postedSpend(accountId)).toBe(40_000n);
      // A replay asks the same amount: answered from the record, nothing posted again.
      expect(ok(await ledger().settle({ holdId: h.id, amountMicros: 55_000n, nowMs: T0 + 20 }))).toMatchObject({
        replayed: true,
        lossMicros: 0n,
      });
      expect(await ledger().settle({ holdId: h.id, amountMicros: 39_000n, nowMs: T0 + 20 })).toEqual({
        ok: false,
        reason: 'idempotency_conflict',
      });
    });

    it('lets a debit that allows a shortfall take what is there, the rest being a loss; refuses it otherwise', async () => {
      const { accountId } = await account([7_000n, RUB_90]);
      expect(await ledger().debit({ id: newId('chg'), accountId, amountMicros: 9_000n, nowMs: T0 + 10 })).toMatchObject(
        { ok: false, reason: 'insufficient_balance' },
      );
      const late = ok(
        await ledger().debit({
          id: newId('late'),
          accountId,
          amountMicros: 9_000n,
          nowMs: T0 + 10,
          allowShortfall: true,
          usage: line(),
        }),
      );
      expect(late).toMatchObject({
        transfer: { amountMicros: 9_000n, postedMicros: 7_000n },
        lossMicros: 2_000n,
        usage: { costMicros: 7_000n },
      });
      expect(await ledger().getBalance(accountId)).toEqual({ accountId, availableMicros: 0n, heldMicros: 0n });
      expect(await ledger().postedSpend(accountId)).toBe(7_000n);
    });
  });

  describe('extend', () => {
    it('moves a pending hold’s expiry later, never earlier, so the sweeper leaves it alone', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const h = ok(await hold(accountId, 10_000n, newId('hold'), 1_000)).hold;
      expect(
        ok(await ledger().extend({ holdId: h.id, expiresAtMs: T0 + 5_000, nowMs: T0 + 900 })).hold.expiresAtMs,
      ).toBe(T0 + 5_000);
      expect(
        ok(await ledger().extend({ holdId: h.id, expiresAtMs: T0 + 2_000, nowMs: T0 + 950 })).hold.expiresAtMs,
      ).toBe(T0 + 5_000);
      await ledger().expireHolds(T0 + 4_999);
      expect((await ledger().getHold(h.id))?.status).toBe('pending');
      ok(await ledger().release({ holdId: h.id, nowMs: T0 + 4_999 }));
    });

    it('cannot revive a hold that is due, resolved or unknown', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const due = ok(await hold(accountId, 10_000n, newId('hold'), 1_000)).hold;
      expect(await ledger().extend({ holdId: due.id, expiresAtMs: T0 + 9_000, nowMs: T0 + 1_000 })).toEqual({
        ok: false,
        reason: 'hold_not_pending',
        status: 'expired',
      });
      const settled = ok(await hold(accountId, 10_000n)).hold;
      ok(await ledger().settle({ holdId: settled.id, amountMicros: 1n, nowMs: T0 + 5 }));
      expect(await ledger().extend({ holdId: settled.id, expiresAtMs: T0 + 9_000, nowMs: T0 + 6 })).toEqual({
        ok: false,
        reason: 'hold_not_pending',
        status: 'posted',
      });
      expect(await ledger().extend({ holdId: newId('hold'), expiresAtMs: T0 + 9_000, nowMs: T0 })).toEqual({
        ok: false,
        reason: 'hold_not_found',
      });
      expect(await ledger().getBalance(accountId)).toEqual({ accountId, availableMicros: 99_999n, heldMicros: 0n });
    });
  });

  describe('group commit', () => {
    it('writes the calls of one turn together, each with its own outcome, in arrival order', async () => {
      const { accountId } = await account([30_000n, RUB_90]);
      const first = newId('hold');
      batches.length = 0;
      const calls: Promise<OpOutcome>[] = [
        hold(accountId, 10_000n, first),
        hold(accountId, 25_000n), // 20_000 left after the first: refused, and only this one
        ledger().debit({ id: newId('chg'), accountId, amountMicros: 5_000n, nowMs: T0 }),
        ledger().release({ holdId: newId('hold'), nowMs: T0 }),
        hold(accountId, 10_000n, first), // a replay inside the batch
        ledger().settle({ holdId: first, amountMicros: 8_000n, nowMs: T0 + 1, usage: line() }), // settles the hold made above
      ];
      const [a, b, c, d, e, f] = await Promise.all(calls);
      expect(batches).toEqual([6]);
      expect(ok(a as HoldOutcome).replayed).toBe(false);
      expect(b).toEqual({ ok: false, reason: 'insufficient_balance', availableMicros: 20_000n });
      expect(c).toMatchObject({ ok: true, transfer: { postedMicros: 5_000n } });
      expect(d).toEqual({ ok: false, reason: 'hold_not_found' });
      expect(ok(e as HoldOutcome).replayed).toBe(true);
      expect(f).toMatchObject({ ok: true, replayed: false, hold: { postedMicros: 8_000n } });
      expect(await ledger().getBalance(accountId)).toEqual({ accountId, availableMicros: 17_000n, heldMicros: 0n });
      expect((await usageOf(accountId)).map((u) => u.costMicros)).toEqual([8_000n]);
    });

    it('takes 200 concurrent holds on one account in few writes, and admits exactly what the balance covers', async () => {
      const { accountId } = await account([500_000n, RUB_90]);
      batches.length = 0;
      const outcomes = await Promise.all(Array.from({ length: 200 }, () => hold(accountId, 10_000n)));
      expect(outcomes.filter((o) => o.ok)).toHaveLength(50);
      expect(batches.reduce((n, size) => n + size, 0)).toBe(200);
      expect(batches.length).toBeLessThanOrEqual(4);
      await Promise.all(
        outcomes.flatMap((o) => (o.ok ? [ledger().release({ holdId: o.hold.id, nowMs: T0 + 1 })] : [])),
      );
    });

    it('applies a turn of captures, a refund, a credit and a payout on one account as one at a time would', async () => {
      const { accountId, lotIds } = await account([10_000n, RUB_90], [10_000n, RUB_100]);
      const { accountId: payeeId } = await account([1n, RUB_90]);
      const earlier = ok(
        await ledger().debit({ id: newId('chg'), accountId, amountMicros: 3_000n, nowMs: T0 + 5 }),
      ).transfer;
      const lease = ok(await hold(accountId, 15_000n)).hold;
      const capture = (amountMicros: Micros, payee?: Payee) =>
        ledger().capture({
          id: newId('cap'),
          holdId: lease.id,
          amountMicros,
          capMicros: 15_000n,
          nowMs: T0 + 10,
          usage: line(),
          ...(payee === undefined ? {} : { payee }),
        });
      const topUp = newId('top');
      batches.length = 0;
      const outcomes = await Promise.all([
        capture(4_000n), // lot 1: 7,000 → 3,000
        capture(5_000n), // lot 1 emptied, lot 2: 10,000 → 8,000
        ledger().refund({ id: newId('rf'), refundOf: earlier.id, amountMicros: 3_000n, nowMs: T0 + 10 }), // lot 1: 0 → 3,000
        ledger().credit({
          id: topUp,
          accountId,
          amountMicros: 1_000n,
          nowMs: T0 + 10,
          lot: { currency: 'USD', fxRateRubMicro: RUB_90 },
        }),
        capture(2_000n), // lot 1 again, spendable after the refund: 3,000 → 1,000
        capture(1_000n, { accountId: payeeId, amountMicros: 600n, lot: { currency: 'USD', fxRateRubMicro: RUB_90 } }), // lot 1: 1,000 → 0
        capture(20_000n), // more than the 3,000 left in the lease: capped at it, the rest a loss; lot 2: 8,000 → 5,000
      ]);
      expect(batches).toEqual([7]);
      expect(outcomes.every((o) => o.ok)).toBe(true);
      expect(outcomes.at(-1)).toMatchObject({ transfer: { postedMicros: 3_000n }, lossMicros: 17_000n });
      expect(await ledger().getHold(lease.id)).toMatchObject({ status: 'pending', amountMicros: 0n });
      expect(await ledger().getBalance(accountId)).toEqual({
        accountId,
        availableMicros: 20_000n - 3_000n - 15_000n + 3_000n + 1_000n,
        heldMicros: 0n,
      });
      expect(await ledger().getBalance(payeeId)).toEqual({ accountId: payeeId, availableMicros: 601n, heldMicros: 0n });
      const lots = new Map((await ledger().listLots(accountId)).map((lot) => [lot.id, lot.remainingMicros]));
      expect(lots).toEqual(
        new Map([
          [lotIds[1]!, 5_000n],
          [topUp, 1_000n],
        ]),
      );
      expect((await usageOf(accountId)).map((u) => u.costMicros).sort((a, b) => Number(a - b))).toEqual([
        1_000n,
        2_000n,
        3_000n,
        4_000n,
        5_000n,
      ]);
      ok(await ledger().release({ holdId: lease.id, nowMs: T0 + 20 }));
    });

    it('lands the rest of a batch one by one when one write fails, and the failed charge once it can', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const pending = ok(await hold(accountId, 20_000n)).hold;
      const usage = line();
      await subject().breakUsageLog();
      let failed: OpOutcome | Error;
      let neighbours: OpOutcome[];
      try {
        const settle = ledger()
          .settle({ holdId: pending.id, amountMicros: 15_000n, nowMs: T0 + 10, usage })
          .catch((err: Error) => err);
        neighbours = await Promise.all([
          hold(accountId, 30_000n),
          ledger().debit({ id: newId('chg'), accountId, amountMicros: 4_000n, nowMs: T0 + 10 }),
        ]);
        failed = await settle;
      } finally {
        await subject().repairUsageLog();
      }
      expect(failed).toBeInstanceOf(Error);
      expect(neighbours.every((o) => o.ok)).toBe(true);
      expect(await ledger().getHold(pending.id)).toMatchObject({ status: 'pending' });
      expect(await usageOf(accountId)).toEqual([]);
      const retried = ok(await ledger().settle({ holdId: pending.id, amountMicros: 15_000n, nowMs: T0 + 20, usage }));
      expect(retried.replayed).toBe(false);
      expect((await usageOf(accountId)).map((u) => u.id)).toEqual([usage.id]);
      expect(await ledger().getBalance(accountId)).toEqual({
        accountId,
        availableMicros: 100_000n - 15_000n - 4_000n - 30_000n,
        heldMicros: 30_000n,
      });
      const held = (neighbours[0] as HoldOutcome & { ok: true }).hold;
      ok(await ledger().release({ holdId: held.id, nowMs: T0 + 30 }));
    });
  });
}

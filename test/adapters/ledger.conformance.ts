/**
 * The behavioural contract of the ledger port (src/adapters/ledger/README.md), run against every engine so the
 * in-memory twin and the plpgsql function stay honest (DESIGN 1, 4). One ledger per suite; each test opens fresh
 * accounts, and after every test the books must balance (Σ balances = 0) and each account's lots must cover its
 * balance. Holds outside the expiry tests live for a year, so a sweep there never touches another test's holds.
 * Longer than 300 lines on purpose: it is the ledger's executable specification, read top to bottom (the batch,
 * usage-line and loss cases are in ledger-batches.conformance.ts, captures and payouts in their own files).
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BatchingOptions } from '../../src/adapters/ledger/batching-ledger.js';
import type { Allocation, Ledger, Micros } from '../../src/adapters/ledger/index.js';
import type { UsageLogStore } from '../../src/adapters/usage-log/index.js';
import { newId } from '../../src/lib/ids.js';
import { ledgerBatchCases } from './ledger-batches.conformance.js';
import { ledgerCaptureCases } from './ledger-captures.conformance.js';
import { alloc, ok, RUB_90, RUB_100, T0, YEAR_MS } from './ledger-fixtures.js';
import { ledgerPayoutCases } from './ledger-payouts.conformance.js';

export interface LedgerUnderTest {
  ledger: Ledger;
  /** Where the engine writes usage lines, read back through the usage-log port. */
  usage: UsageLogStore;
  /** Makes every write of a usage line fail until repaired (a write that fails inside a batch). */
  breakUsageLog: () => Promise<void>;
  repairUsageLog: () => Promise<void>;
  cleanup: () => Promise<void>;
  /** Whether the engine calls a capture's `onHandedOff` (one with a network: README.md "Handed off"). */
  handsOff: boolean;
}

/** What one suite shares with its case files: the subject, fresh accounts and the writes counted per batch. */
export interface LedgerSuite {
  subject: () => LedgerUnderTest;
  account: (...topUps: [Micros, bigint][]) => Promise<{ accountId: string; lotIds: string[] }>;
  /** Sizes of the writes since the last reset (BatchingOptions.onBatch). */
  batches: number[];
}

const CENT = 10_000n;

const sum = (list: readonly Allocation[]) => list.reduce((s, a) => s + a.amountMicros, 0n);
/** Outcome fields of a posting that moved no money beyond what was asked and wrote no usage line. */
const plain = { lossMicros: 0n, usage: null };

export function ledgerConformance(name: string, make: (options: BatchingOptions) => Promise<LedgerUnderTest>): void {
  describe(`Ledger conformance: ${name}`, () => {
    let subject: LedgerUnderTest;
    const ledger = () => subject.ledger;
    let touched: string[] = [];
    const batches: number[] = [];

    beforeAll(async () => {
      subject = await make({ onBatch: (operations) => batches.push(operations) });
    });
    afterAll(async () => {
      await subject?.cleanup();
    });
    afterEach(async () => {
      expect(await ledger().sumOfAllBalances()).toBe(0n); // every posted transfer balances
      for (const accountId of touched) {
        const b = await ledger().getBalance(accountId);
        expect(b.availableMicros >= 0n && b.heldMicros >= 0n).toBe(true);
        const lots = await ledger().listLots(accountId);
        expect(lots.reduce((s, l) => s + l.remainingMicros, 0n)).toBe(b.availableMicros + b.heldMicros);
      }
      touched = [];
    });

    /** A fresh account with one top-up lot per amount, each 1 ms after the previous. */
    async function account(...topUps: [Micros, bigint][]) {
      const accountId = newId('acc');
      touched.push(accountId);
      const lotIds: string[] = [];
      for (const [i, [amountMicros, fxRateRubMicro]] of topUps.entries()) {
        const id = newId('cr');
        const out = await ledger().credit({
          id,
          accountId,
          amountMicros,
          lot: { currency: 'RUB', fxRateRubMicro },
          nowMs: T0 + i,
        });
        if (!out.ok) throw new Error('fixture credit failed');
        lotIds.push(id);
      }
      return { accountId, lotIds };
    }

    ledgerBatchCases({ subject: () => subject, account, batches });
    ledgerCaptureCases({ subject: () => subject, account, batches });
    ledgerPayoutCases({ subject: () => subject, account, batches });

    const hold = (accountId: string, amountMicros: Micros, id = newId('hold'), nowMs = T0, ttlMs = YEAR_MS) =>
      ledger().hold({ id, accountId, amountMicros, nowMs, ttlMs });
    const settle = (holdId: string, amountMicros: Micros, nowMs = T0 + 10) =>
      ledger().settle({ holdId, amountMicros, nowMs });
    const debit = (accountId: string, amountMicros: Micros, id = newId('chg'), nowMs = T0 + 10) =>
      ledger().debit({ id, accountId, amountMicros, nowMs });
    const refund = (refundOf: string, amountMicros: Micros, id = newId('rf'), nowMs = T0 + 20) =>
      ledger().refund({ id, refundOf, amountMicros, nowMs });
    const balance = async (accountId: string) => {
      const b = await ledger().getBalance(accountId);
      return [b.availableMicros, b.heldMicros];
    };

    describe('accounts and credits', () => {
      it('shows zeros for an account never seen, and refuses to hold or debit on it', async () => {
        const accountId = newId('acc');
        expect(await ledger().getBalance(accountId)).toEqual({ accountId, availableMicros: 0n, heldMicros: 0n });
        expect(await hold(accountId, 1n)).toEqual({ ok: false, reason: 'insufficient_balance', availableMicros: 0n });
        expect(await debit(accountId, 1n)).toEqual({ ok: false, reason: 'insufficient_balance', availableMicros: 0n });
        expect(await ledger().listLots(accountId)).toEqual([]);
        expect(await ledger().postedSpend(accountId)).toBe(0n);
        expect(await ledger().getHold(newId('hold'))).toBeNull();
        expect(await ledger().getTransfer(newId('chg'))).toBeNull();
      });

      it('records a credit as a lot with its rate, and replays it by id', async () => {
        const accountId = newId('acc');
        touched.push(accountId);
        const lotSpec = { currency: 'USD' as const, fxRateRubMicro: RUB_90 };
        const input = { id: newId('cr'), accountId, amountMicros: 700_000n, lot: lotSpec, nowMs: T0, memo: 'card' };
        const transfer = {
          id: input.id,
          accountId,
          holdId: null,
          kind: 'credit',
          amountMicros: 700_000n,
          postedMicros: 700_000n,
          createdAtMs: T0,
          refundOf: null,
          allocations: [],
          memo: 'card',
        };
        expect(await ledger().credit(input)).toEqual({ ok: true, transfer, replayed: false, ...plain });
        expect(await ledger().credit(input)).toEqual({ ok: true, transfer, replayed: true, ...plain });
        expect(await ledger().credit({ ...input, amountMicros: 1n })).toEqual({
          ok: false,
          reason: 'idempotency_conflict',
        });
        expect(await ledger().credit({ ...input, lot: { currency: 'USD', fxRateRubMicro: RUB_100 } })).toEqual({
          ok: false,
          reason: 'idempotency_conflict',
        });
        expect(await ledger().getTransfer(input.id)).toEqual(transfer);
        expect(await balance(accountId)).toEqual([700_000n, 0n]);
        const lot = {
          id: input.id,
          accountId,
          currency: 'USD',
          amountMicros: 700_000n,
          remainingMicros: 700_000n,
          fxRateRubMicro: RUB_90,
          createdAtMs: T0,
        };
        expect(await ledger().listLots(accountId)).toEqual([lot]);
      });
    });

    describe('concurrency', () => {
      it('admits exactly 50 of 200 concurrent $0.01 holds against $0.50, never below zero, then settles and releases them', async () => {
        const { accountId, lotIds } = await account([50n * CENT, RUB_90]);
        const reads: Micros[] = [];
        const outcomes = await Promise.all(
          Array.from({ length: 200 }, async (_, i) => {
            if (i % 10 === 0) reads.push((await ledger().getBalance(accountId)).availableMicros);
            return hold(accountId, CENT);
          }),
        );
        const won = outcomes.filter((o) => o.ok);
        expect(won).toHaveLength(50);
        for (const lost of outcomes.filter((o) => !o.ok))
          expect(lost).toMatchObject({ ok: false, reason: 'insufficient_balance' });
        expect(reads.every((r) => r >= 0n)).toBe(true);
        expect(await balance(accountId)).toEqual([0n, 500_000n]);

        const holds = won.map((o) => (o.ok ? o.hold.id : ''));
        const done = await Promise.all(
          holds.map((id, i) => (i % 2 === 0 ? settle(id, 6_000n) : ledger().release({ holdId: id, nowMs: T0 + 10 }))),
        );
        expect(done.every((o) => o.ok)).toBe(true);
        expect(await balance(accountId)).toEqual([500_000n - 25n * 6_000n, 0n]);
        expect(await ledger().postedSpend(accountId)).toBe(150_000n);
        expect((await ledger().listLots(accountId))[0]).toMatchObject({ id: lotIds[0], remainingMicros: 350_000n });
      });

      it('admits exactly 50 of 200 concurrent $0.01 debits against $0.50 and spends the lot to zero', async () => {
        const { accountId } = await account([50n * CENT, RUB_90]);
        const outcomes = await Promise.all(Array.from({ length: 200 }, () => debit(accountId, CENT)));
        const won = outcomes.flatMap((o) => (o.ok ? [o.transfer] : []));
        expect(won).toHaveLength(50);
        expect(outcomes.filter((o) => !o.ok).every((o) => !o.ok && o.reason === 'insufficient_balance')).toBe(true);
        expect(sum(won.flatMap((t) => t.allocations))).toBe(500_000n);
        expect(await balance(accountId)).toEqual([0n, 0n]);
        expect(await ledger().listLots(accountId)).toEqual([]);
        expect(await ledger().postedSpend(accountId)).toBe(500_000n);
      });

      it('consumes lots FIFO across concurrent settles on one account, with exact allocations', async () => {
        const { accountId, lotIds } = await account([30_000n, RUB_90], [50_000n, RUB_100]);
        const [lotA, lotB] = lotIds as [string, string];
        const holds = await Promise.all(Array.from({ length: 8 }, () => hold(accountId, 10_000n)));
        const settled = (await Promise.all(holds.map((h) => settle(ok(h).hold.id, 7_000n)))).map((s) => ok(s).hold);
        for (const h of settled) expect(sum(h.allocations)).toBe(7_000n);
        const all = settled.flatMap((h) => h.allocations);
        expect(sum(all.filter((a) => a.lotId === lotA))).toBe(30_000n);
        expect(sum(all.filter((a) => a.lotId === lotB))).toBe(26_000n);
        // 30_000 / 7_000: four settles fit in lot A, the fifth straddles A and B, in that order.
        const straddling = settled.filter((h) => h.allocations.length === 2).map((h) => h.allocations);
        expect(straddling).toEqual([[alloc(lotA, 2_000n, RUB_90), alloc(lotB, 5_000n, RUB_100)]]);
        expect((await ledger().listLots(accountId)).map((l) => [l.id, l.remainingMicros])).toEqual([[lotB, 24_000n]]);
        expect(await balance(accountId)).toEqual([24_000n, 0n]);
      });

      it('lets one of ten concurrent holds with the same id take the money, the rest replay it', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        const id = newId('hold');
        const outcomes = (await Promise.all(Array.from({ length: 10 }, () => hold(accountId, 30_000n, id)))).map(ok);
        expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
        expect(await balance(accountId)).toEqual([70_000n, 30_000n]);
        ok(await ledger().release({ holdId: id, nowMs: T0 }));
      });

      it('posts a hold once when it is settled and released at the same time', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        const h = ok(await hold(accountId, 40_000n)).hold;
        const outcomes = await Promise.all([
          ...Array.from({ length: 5 }, () => settle(h.id, 30_000n)),
          ...Array.from({ length: 5 }, () => ledger().release({ holdId: h.id, nowMs: T0 + 10 })),
        ]);
        const fresh = outcomes.filter((o) => o.ok && !o.replayed);
        expect(fresh).toHaveLength(1);
        const status = (await ledger().getHold(h.id))?.status;
        expect(await balance(accountId)).toEqual([status === 'posted' ? 70_000n : 100_000n, 0n]);
        expect(await ledger().postedSpend(accountId)).toBe(status === 'posted' ? 30_000n : 0n);
      });

      it('admits exactly five of ten concurrent refunds of $0.002 of a $0.01 charge, restoring the lots exactly', async () => {
        const { accountId, lotIds } = await account([4_000n, RUB_90], [20_000n, RUB_100]);
        const charge = ok(await debit(accountId, CENT)).transfer;
        const outcomes = await Promise.all(Array.from({ length: 10 }, () => refund(charge.id, 2_000n)));
        expect(outcomes.filter((o) => o.ok)).toHaveLength(5);
        expect(outcomes.filter((o) => !o.ok)).toEqual(
          Array.from({ length: 5 }, () => ({ ok: false, reason: 'exceeds_refundable' })),
        );
        expect((await ledger().listLots(accountId)).map((l) => [l.id, l.remainingMicros])).toEqual([
          [lotIds[0], 4_000n],
          [lotIds[1], 20_000n],
        ]);
        expect(await ledger().postedSpend(accountId)).toBe(0n);
      });
    });

    describe('holds', () => {
      it('settles less than held, releasing the rest, and replays the settle', async () => {
        const { accountId, lotIds } = await account([100_000n, RUB_90]);
        const h = ok(await hold(accountId, 40_000n)).hold;
        expect(h).toEqual({
          ...{ id: h.id, accountId, amountMicros: 40_000n, status: 'pending', postedMicros: null },
          ...{ createdAtMs: T0, expiresAtMs: T0 + YEAR_MS, resolvedAtMs: null, allocations: [] },
        });
        expect(await balance(accountId)).toEqual([60_000n, 40_000n]);
        const posted = {
          ...h,
          status: 'posted',
          postedMicros: 25_000n,
          resolvedAtMs: T0 + 10,
          allocations: [alloc(lotIds[0]!, 25_000n, RUB_90)],
        };
        expect(await settle(h.id, 25_000n)).toEqual({ ok: true, hold: posted, replayed: false, ...plain });
        expect(await balance(accountId)).toEqual([75_000n, 0n]);
        expect(await settle(h.id, 25_000n, T0 + 99)).toEqual({ ok: true, hold: posted, replayed: true, ...plain });
        expect(await settle(h.id, 24_000n)).toEqual({ ok: false, reason: 'idempotency_conflict' });
        expect(await ledger().release({ holdId: h.id, nowMs: T0 + 20 })).toEqual({
          ok: false,
          reason: 'hold_not_pending',
          status: 'posted',
        });
        expect(await ledger().getHold(h.id)).toEqual(posted);
        expect(await ledger().postedSpend(accountId)).toBe(25_000n);
      });

      it('settles zero as a full release recorded as posted', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        const h = ok(await hold(accountId, 40_000n)).hold;
        expect(ok(await settle(h.id, 0n)).hold).toMatchObject({ status: 'posted', postedMicros: 0n, allocations: [] });
        expect(await balance(accountId)).toEqual([100_000n, 0n]);
      });

      it('releases a hold once, replays the release, and refuses to settle it afterwards', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        const h = ok(await hold(accountId, 40_000n)).hold;
        const voided = { ...h, status: 'voided', resolvedAtMs: T0 + 5 };
        expect(await ledger().release({ holdId: h.id, nowMs: T0 + 5 })).toEqual({
          ok: true,
          hold: voided,
          replayed: false,
        });
        expect(await ledger().release({ holdId: h.id, nowMs: T0 + 6 })).toEqual({
          ok: true,
          hold: voided,
          replayed: true,
        });
        expect(await settle(h.id, 1n)).toEqual({ ok: false, reason: 'hold_not_pending', status: 'voided' });
        expect(await balance(accountId)).toEqual([100_000n, 0n]);
        expect(await settle(newId('hold'), 1n)).toEqual({ ok: false, reason: 'hold_not_found' });
        expect(await ledger().release({ holdId: newId('hold'), nowMs: T0 })).toEqual({
          ok: false,
          reason: 'hold_not_found',
        });
      });

      it('replays a hold with the same account and amount, and refuses the id for anything else', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        const other = await account([100_000n, RUB_90]);
        const h = ok(await hold(accountId, 40_000n)).hold;
        expect(await hold(accountId, 40_000n, h.id, T0 + 50, 1)).toEqual({ ok: true, hold: h, replayed: true });
        expect(await hold(accountId, 40_001n, h.id)).toEqual({ ok: false, reason: 'idempotency_conflict' });
        expect(await hold(other.accountId, 40_000n, h.id)).toEqual({ ok: false, reason: 'idempotency_conflict' });
        expect(await debit(accountId, 40_000n, h.id)).toEqual({ ok: false, reason: 'idempotency_conflict' });
        expect(await balance(accountId)).toEqual([60_000n, 40_000n]);
        ok(await settle(h.id, 40_000n));
      });

      it('records nothing for a hold refused for lack of money, so the same id can succeed later', async () => {
        const { accountId } = await account([10_000n, RUB_90]);
        const id = newId('hold');
        expect(await hold(accountId, 15_000n, id)).toEqual({
          ok: false,
          reason: 'insufficient_balance',
          availableMicros: 10_000n,
        });
        expect(await ledger().getHold(id)).toBeNull();
        ok(
          await ledger().credit({
            id: newId('cr'),
            accountId,
            amountMicros: 5_000n,
            lot: { currency: 'RUB', fxRateRubMicro: RUB_90 },
            nowMs: T0 + 1,
          }),
        );
        expect(ok(await hold(accountId, 15_000n, id)).replayed).toBe(false);
        ok(await ledger().release({ holdId: id, nowMs: T0 + 2 }));
      });
    });

    describe('expiry', () => {
      it('expires only holds past their time, returns the count, gives the money back, and refuses to settle them', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        const short = ok(await hold(accountId, 10_000n, newId('hold'), T0, 1_000)).hold;
        const long = ok(await hold(accountId, 20_000n, newId('hold'), T0, 5_000)).hold;
        const settled = ok(await hold(accountId, 30_000n, newId('hold'), T0, 1_000)).hold;
        ok(await settle(settled.id, 30_000n, T0 + 500));
        expect(await ledger().expireHolds(T0 + 999)).toBe(0);
        expect(await ledger().expireHolds(T0 + 1_000)).toBe(1);
        expect(await ledger().expireHolds(T0 + 1_000)).toBe(0);
        expect(await ledger().getHold(short.id)).toMatchObject({
          status: 'expired',
          resolvedAtMs: T0 + 1_000,
          postedMicros: null,
        });
        expect(await balance(accountId)).toEqual([50_000n, 20_000n]);
        expect(await settle(short.id, 10_000n, T0 + 1_001)).toEqual({
          ok: false,
          reason: 'hold_not_pending',
          status: 'expired',
        });
        expect(await ledger().release({ holdId: short.id, nowMs: T0 + 1_001 })).toEqual({
          ok: false,
          reason: 'hold_not_pending',
          status: 'expired',
        });
        expect(await ledger().expireHolds(T0 + 5_000)).toBe(1);
        expect(await ledger().getHold(long.id)).toMatchObject({ status: 'expired' });
        expect(await balance(accountId)).toEqual([70_000n, 0n]);
      });

      it('treats a hold past its time as expired when settled before the sweeper ran', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        const h = ok(await hold(accountId, 10_000n, newId('hold'), T0, 1_000)).hold;
        expect(await settle(h.id, 10_000n, T0 + 1_000)).toEqual({
          ok: false,
          reason: 'hold_not_pending',
          status: 'expired',
        });
        expect(await ledger().getHold(h.id)).toMatchObject({ status: 'expired', resolvedAtMs: T0 + 1_000 });
        expect(await balance(accountId)).toEqual([100_000n, 0n]);
      });

      it('expires each due hold exactly once when two sweeps run at once', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        await Promise.all(Array.from({ length: 30 }, () => hold(accountId, 1_000n, newId('hold'), T0 + 2_000, 1_000)));
        const counts = await Promise.all([ledger().expireHolds(T0 + 3_000), ledger().expireHolds(T0 + 3_000)]);
        expect(counts[0] + counts[1]).toBe(30);
        expect(await balance(accountId)).toEqual([100_000n, 0n]);
      });
    });

    describe('lots, debits and refunds', () => {
      it('switches lots exactly when the first runs out, and refunds restore the most recently consumed first', async () => {
        const { accountId, lotIds } = await account([10_000n, RUB_90], [20_000n, RUB_100]);
        const [lotA, lotB] = lotIds as [string, string];
        expect(ok(await debit(accountId, 6_000n)).transfer.allocations).toEqual([alloc(lotA, 6_000n, RUB_90)]);
        const second = ok(await debit(accountId, 7_000n, newId('chg'), T0 + 11)).transfer;
        expect(second.allocations).toEqual([alloc(lotA, 4_000n, RUB_90), alloc(lotB, 3_000n, RUB_100)]);
        expect((await ledger().listLots(accountId)).map((l) => l.id)).toEqual([lotB]);

        const r1 = ok(await refund(second.id, 5_000n)).transfer;
        expect(r1).toMatchObject({
          accountId,
          kind: 'refund',
          amountMicros: 5_000n,
          refundOf: second.id,
          createdAtMs: T0 + 20,
        });
        expect(r1.allocations).toEqual([alloc(lotB, -3_000n, RUB_100), alloc(lotA, -2_000n, RUB_90)]);
        expect((await ledger().listLots(accountId)).map((l) => [l.id, l.remainingMicros])).toEqual([
          [lotA, 2_000n],
          [lotB, 20_000n],
        ]);
        expect(await refund(second.id, 5_000n, r1.id)).toEqual({ ok: true, transfer: r1, replayed: true, ...plain });
        expect(await refund(second.id, 4_000n, r1.id)).toEqual({ ok: false, reason: 'idempotency_conflict' });
        expect(await ledger().getTransfer(r1.id)).toEqual(r1);

        expect(ok(await refund(second.id, 2_000n)).transfer.allocations).toEqual([alloc(lotA, -2_000n, RUB_90)]);
        expect(await refund(second.id, 1n)).toEqual({ ok: false, reason: 'exceeds_refundable' });
        // FIFO resumes as if the refunded spend never happened: lot A first again.
        expect(ok(await debit(accountId, 5_000n)).transfer.allocations).toEqual([
          alloc(lotA, 4_000n, RUB_90),
          alloc(lotB, 1_000n, RUB_100),
        ]);
        expect(await ledger().postedSpend(accountId)).toBe(6_000n + 7_000n - 5_000n - 2_000n + 5_000n);
      });

      it('refunds a settled hold in parts, and only posted spend', async () => {
        const { accountId, lotIds } = await account([100_000n, RUB_90]);
        const h = ok(await hold(accountId, 10_000n)).hold;
        ok(await settle(h.id, 8_000n));
        expect(ok(await refund(h.id, 3_000n)).transfer).toMatchObject({
          accountId,
          refundOf: h.id,
          allocations: [alloc(lotIds[0]!, -3_000n, RUB_90)],
        });
        ok(await refund(h.id, 5_000n));
        expect(await refund(h.id, 1n)).toEqual({ ok: false, reason: 'exceeds_refundable' });
        expect(await balance(accountId)).toEqual([100_000n, 0n]);
        const pending = ok(await hold(accountId, 1_000n)).hold;
        expect(await refund(pending.id, 1n)).toEqual({ ok: false, reason: 'transfer_not_found' });
        ok(await ledger().release({ holdId: pending.id, nowMs: T0 + 1 }));
        expect(await refund(pending.id, 1n)).toEqual({ ok: false, reason: 'transfer_not_found' });
        expect(await refund(lotIds[0]!, 1n)).toEqual({ ok: false, reason: 'transfer_not_found' }); // a credit is not spend
        expect(await refund(newId('chg'), 1n)).toEqual({ ok: false, reason: 'transfer_not_found' });
      });

      it('replays a debit by id, refuses a different one, and records nothing for a refused debit', async () => {
        const { accountId } = await account([10_000n, RUB_90]);
        const id = newId('chg');
        expect(await debit(accountId, 20_000n, id)).toEqual({
          ok: false,
          reason: 'insufficient_balance',
          availableMicros: 10_000n,
        });
        expect(await ledger().getTransfer(id)).toBeNull();
        const first = ok(await debit(accountId, 4_000n, id));
        expect(first.transfer).toMatchObject({
          id,
          accountId,
          kind: 'debit',
          amountMicros: 4_000n,
          refundOf: null,
          memo: '',
        });
        expect(await debit(accountId, 4_000n, id, T0 + 99)).toEqual({ ...first, replayed: true });
        expect(await debit(accountId, 5_000n, id)).toEqual({ ok: false, reason: 'idempotency_conflict' });
        expect(await balance(accountId)).toEqual([6_000n, 0n]);
      });

      it('returns copies: changing a returned record does not change the ledger', async () => {
        const { accountId } = await account([10_000n, RUB_90]);
        const t = ok(await debit(accountId, 4_000n)).transfer;
        t.allocations[0]!.amountMicros = 1n;
        t.allocations.push(alloc('x', 1n, 1n));
        expect((await ledger().getTransfer(t.id))?.allocations).toHaveLength(1);
        expect((await ledger().getTransfer(t.id))?.allocations[0]?.amountMicros).toBe(4_000n);
      });
    });

    describe('postedSpend', () => {
      it('sums settles (at settle time) and debits minus refunds (at refund time), in [from, to)', async () => {
        const { accountId } = await account([100_000n, RUB_90]);
        const charge = ok(await debit(accountId, 5_000n, newId('chg'), T0 + 100)).transfer;
        const h = ok(await hold(accountId, 9_000n, newId('hold'), T0 + 150)).hold;
        ok(await settle(h.id, 4_000n, T0 + 300));
        ok(await refund(charge.id, 1_000n, newId('rf'), T0 + 400));
        ok(await debit(accountId, 2_000n, newId('chg'), T0 + 500));
        const spend = (range?: { fromMs?: number; toMs?: number }) => ledger().postedSpend(accountId, range);
        expect(await spend()).toBe(10_000n);
        expect(await spend({})).toBe(10_000n);
        expect(await spend({ fromMs: T0 + 100, toMs: T0 + 300 })).toBe(5_000n);
        expect(await spend({ fromMs: T0 + 300, toMs: T0 + 401 })).toBe(3_000n);
        expect(await spend({ fromMs: T0 + 400 })).toBe(1_000n);
        expect(await spend({ toMs: T0 + 300 })).toBe(5_000n);
        expect(await spend({ fromMs: T0 + 501 })).toBe(0n);
      });
    });
  });
}

/**
 * The ledger conformance cases of payouts (src/adapters/ledger/README.md "Payouts"): a debit or a capture from a hold
 * that credits a provider's share in its own transaction, out of revenue. Registered inside each engine's suite by
 * ledger.conformance.ts, which owns the subject, the accounts and the after-each invariants (Σ balances = 0, lots
 * cover every touched balance, the payee's included).
 */
import { describe, expect, it } from 'vitest';
import type { Micros, Payee } from '../../src/adapters/ledger/index.js';
import { SYSTEM_ACCOUNTS } from '../../src/adapters/ledger/index.js';
import { newId } from '../../src/lib/ids.js';
import type { LedgerSuite } from './ledger.conformance.js';
import { alloc, ok, RUB_90, T0, YEAR_MS } from './ledger-fixtures.js';

export function ledgerPayoutCases({ subject, account, batches }: LedgerSuite): void {
  const ledger = () => subject().ledger;
  const payee = (accountId: string, amountMicros: Micros): Payee => ({
    accountId,
    amountMicros,
    lot: { currency: 'USD', fxRateRubMicro: RUB_90 },
  });
  const rent = (accountId: string, amountMicros: Micros, to: Payee, id = newId('rental'), allowShortfall = false) =>
    ledger().debit({ id, accountId, amountMicros, nowMs: T0 + 10, payee: to, allowShortfall });
  const available = async (accountId: string) => (await ledger().getBalance(accountId)).availableMicros;
  const lease = async (accountId: string, amountMicros: Micros, ttlMs = YEAR_MS) =>
    ok(await ledger().hold({ id: newId('lease'), accountId, amountMicros, nowMs: T0, ttlMs })).hold;
  const take = (
    holdId: string,
    amountMicros: Micros,
    capMicros: Micros,
    to: Payee,
    id = newId('rental'),
    nowMs = T0 + 10,
  ) => ledger().capture({ id, holdId, amountMicros, capMicros, nowMs, payee: to });
  const balance = async (accountId: string) => {
    const b = await ledger().getBalance(accountId);
    return [b.availableMicros, b.heldMicros];
  };

  describe('payouts', () => {
    it('credits the payee its share as an earning with a lot, in the debit’s write, and revenue keeps the rest', async () => {
      const renter = await account([100_000n, RUB_90]);
      const provider = await account();
      const revenueBefore = await available(SYSTEM_ACCOUNTS.revenue);
      const depositsBefore = await available(SYSTEM_ACCOUNTS.deposits);
      batches.length = 0;
      const id = newId('rental');
      const charged = ok(await rent(renter.accountId, 10_000n, payee(provider.accountId, 8_000n), id));
      expect(batches).toEqual([1]);
      expect(charged).toMatchObject({
        replayed: false,
        lossMicros: 0n,
        transfer: { id, kind: 'debit', postedMicros: 10_000n },
      });

      const earning = {
        id: `earning:${id}`,
        accountId: provider.accountId,
        kind: 'credit',
        amountMicros: 8_000n,
        postedMicros: 8_000n,
      };
      const rest = { createdAtMs: T0 + 10, refundOf: null, holdId: null, allocations: [], memo: `earning from ${id}` };
      expect(await ledger().getTransfer(`earning:${id}`)).toEqual({ ...earning, ...rest });
      expect(await ledger().getBalance(provider.accountId)).toEqual({
        accountId: provider.accountId,
        availableMicros: 8_000n,
        heldMicros: 0n,
      });
      const lot = {
        id: `earning:${id}`,
        accountId: provider.accountId,
        currency: 'USD',
        amountMicros: 8_000n,
        remainingMicros: 8_000n,
        fxRateRubMicro: RUB_90,
        createdAtMs: T0 + 10,
      };
      expect(await ledger().listLots(provider.accountId)).toEqual([lot]);
      expect((await available(SYSTEM_ACCOUNTS.revenue)) - revenueBefore).toBe(2_000n);
      expect(await available(SYSTEM_ACCOUNTS.deposits)).toBe(depositsBefore);
      // Spend is the renter's: the earning is no spend of the provider's.
      expect(await ledger().postedSpend(renter.accountId)).toBe(10_000n);
      expect(await ledger().postedSpend(provider.accountId)).toBe(0n);
      expect(await ledger().sumOfAllBalances()).toBe(0n);
    });

    it('pays at most what a shortfall debit took, and writes nothing when it took nothing', async () => {
      const renter = await account([3_000n, RUB_90]);
      const provider = await account();
      const revenueBefore = await available(SYSTEM_ACCOUNTS.revenue);
      const lossesBefore = await available(SYSTEM_ACCOUNTS.losses);
      const short = ok(await rent(renter.accountId, 10_000n, payee(provider.accountId, 8_000n), newId('rental'), true));
      expect(short).toMatchObject({ transfer: { postedMicros: 3_000n }, lossMicros: 7_000n });
      expect(await ledger().getTransfer(`earning:${short.transfer.id}`)).toMatchObject({
        amountMicros: 3_000n,
        postedMicros: 3_000n,
      });
      expect(await available(provider.accountId)).toBe(3_000n);
      // Revenue: what was taken (3_000) less the payout (3_000), plus the loss it absorbed (7_000).
      expect((await available(SYSTEM_ACCOUNTS.revenue)) - revenueBefore).toBe(7_000n);
      expect((await available(SYSTEM_ACCOUNTS.losses)) - lossesBefore).toBe(-7_000n);

      const empty = ok(await rent(renter.accountId, 5_000n, payee(provider.accountId, 4_000n), newId('rental'), true));
      expect(empty).toMatchObject({ transfer: { postedMicros: 0n }, lossMicros: 5_000n });
      const unpaid = ok(await rent((await account([1_000n, RUB_90])).accountId, 1_000n, payee(provider.accountId, 0n)));
      for (const t of [empty.transfer, unpaid.transfer])
        expect(await ledger().getTransfer(`earning:${t.id}`)).toBeNull();
      expect((await ledger().listLots(provider.accountId)).map((l) => l.id)).toEqual([`earning:${short.transfer.id}`]);
      expect(await available(provider.accountId)).toBe(3_000n);
      expect(await ledger().sumOfAllBalances()).toBe(0n);
    });

    it('pays once however often the debit is replayed, in one batch or later, and never for a refused debit', async () => {
      const renter = await account([100_000n, RUB_90]);
      const provider = await account();
      const id = newId('rental');
      const outcomes = (
        await Promise.all(
          Array.from({ length: 5 }, () => rent(renter.accountId, 10_000n, payee(provider.accountId, 9_000n), id)),
        )
      ).map(ok);
      expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
      const revenueAfter = await available(SYSTEM_ACCOUNTS.revenue);
      expect(await rent(renter.accountId, 10_000n, payee(provider.accountId, 9_000n), id)).toEqual({
        ...outcomes.find((o) => !o.replayed),
        replayed: true,
        usage: null,
      });
      expect(await rent(renter.accountId, 10_001n, payee(provider.accountId, 9_000n), id)).toEqual({
        ok: false,
        reason: 'idempotency_conflict',
      });
      expect(await available(provider.accountId)).toBe(9_000n);
      expect(await available(renter.accountId)).toBe(90_000n);
      expect(await available(SYSTEM_ACCOUNTS.revenue)).toBe(revenueAfter);

      const refused = newId('rental');
      expect(await rent(renter.accountId, 100_000n, payee(provider.accountId, 1n), refused)).toEqual({
        ok: false,
        reason: 'insufficient_balance',
        availableMicros: 90_000n,
      });
      expect(await ledger().getTransfer(`earning:${refused}`)).toBeNull();
      expect(await available(provider.accountId)).toBe(9_000n);
    });

    it('lets the payee spend the earning like a top-up, FIFO after its older lots', async () => {
      const renter = await account([50_000n, RUB_90]);
      const provider = await account([2_000n, RUB_90]);
      const id = newId('rental');
      ok(await rent(renter.accountId, 20_000n, payee(provider.accountId, 15_000n), id));
      const spent = ok(
        await ledger().debit({ id: newId('chg'), accountId: provider.accountId, amountMicros: 6_000n, nowMs: T0 + 20 }),
      ).transfer;
      expect(spent.allocations).toEqual([
        alloc(provider.lotIds[0]!, 2_000n, RUB_90),
        alloc(`earning:${id}`, 4_000n, RUB_90),
      ]);
      expect((await ledger().listLots(provider.accountId)).map((l) => [l.id, l.remainingMicros])).toEqual([
        [`earning:${id}`, 11_000n],
      ]);
      expect(await available(provider.accountId)).toBe(11_000n);
      expect(await ledger().postedSpend(provider.accountId)).toBe(6_000n);
    });

    it('settles concurrent rentals paying one provider while the provider pays others, every balance exact', async () => {
      const provider = await account([10_000n, RUB_90]);
      const renters = await Promise.all(Array.from({ length: 10 }, () => account([10_000n, RUB_90])));
      // Each renter pays the provider, and the provider pays each renter: payees and payers cross within batches.
      const outcomes = await Promise.all(
        renters.flatMap(({ accountId }) => [
          rent(accountId, 5_000n, payee(provider.accountId, 4_000n)),
          rent(provider.accountId, 1_000n, payee(accountId, 500n)),
        ]),
      );
      expect(outcomes.every((o) => o.ok)).toBe(true);
      expect(await available(provider.accountId)).toBe(10_000n + 10n * 4_000n - 10n * 1_000n);
      for (const { accountId } of renters) expect(await available(accountId)).toBe(10_000n - 5_000n + 500n);
    });

    it('refuses a payee that is the charged account or is owed a negative amount, at the call', async () => {
      const renter = await account([10_000n, RUB_90]);
      expect(() => rent(renter.accountId, 1_000n, payee(renter.accountId, 500n))).toThrow(RangeError);
      expect(() => rent(renter.accountId, 1_000n, payee(newId('acc'), -1n))).toThrow(RangeError);
      expect(await available(renter.accountId)).toBe(10_000n);
    });
  });

  describe('payouts from captures', () => {
    it('credits the payee its share of a capture in the capture’s write; the hold keeps the rest until released', async () => {
      const renter = await account([100_000n, RUB_90]);
      const provider = await account();
      const hold = await lease(renter.accountId, 60_000n);
      const revenueBefore = await available(SYSTEM_ACCOUNTS.revenue);
      const depositsBefore = await available(SYSTEM_ACCOUNTS.deposits);
      batches.length = 0;
      const id = newId('rental');
      const charged = ok(await take(hold.id, 10_000n, 10_000n, payee(provider.accountId, 8_000n), id));
      expect(batches).toEqual([1]);
      expect(charged).toMatchObject({
        replayed: false,
        lossMicros: 0n,
        transfer: { id, kind: 'capture', postedMicros: 10_000n, holdId: hold.id },
      });

      const earning = {
        id: `earning:${id}`,
        accountId: provider.accountId,
        kind: 'credit',
        amountMicros: 8_000n,
        postedMicros: 8_000n,
      };
      const rest = { createdAtMs: T0 + 10, refundOf: null, holdId: null, allocations: [], memo: `earning from ${id}` };
      expect(await ledger().getTransfer(`earning:${id}`)).toEqual({ ...earning, ...rest });
      const lot = {
        id: `earning:${id}`,
        accountId: provider.accountId,
        currency: 'USD',
        amountMicros: 8_000n,
        remainingMicros: 8_000n,
        fxRateRubMicro: RUB_90,
        createdAtMs: T0 + 10,
      };
      expect(await ledger().listLots(provider.accountId)).toEqual([lot]);
      expect(await balance(provider.accountId)).toEqual([8_000n, 0n]);
      expect((await available(SYSTEM_ACCOUNTS.revenue)) - revenueBefore).toBe(2_000n);
      expect(await available(SYSTEM_ACCOUNTS.deposits)).toBe(depositsBefore);
      expect(await ledger().sumOfAllBalances()).toBe(0n);

      // The hold keeps what the capture left, pending; releasing it gives that back to the renter, not the payee.
      expect(await ledger().getHold(hold.id)).toMatchObject({ status: 'pending', amountMicros: 50_000n });
      expect(await balance(renter.accountId)).toEqual([40_000n, 50_000n]);
      expect(await ledger().release({ holdId: hold.id, nowMs: T0 + 20 })).toMatchObject({
        ok: true,
        hold: { status: 'voided', amountMicros: 50_000n },
      });
      expect(await balance(renter.accountId)).toEqual([90_000n, 0n]);
      expect(await balance(provider.accountId)).toEqual([8_000n, 0n]);
      expect(await ledger().postedSpend(renter.accountId)).toBe(10_000n);
      expect(await ledger().postedSpend(provider.accountId)).toBe(0n);
      expect(await ledger().sumOfAllBalances()).toBe(0n);
    });

    it('pays at most what the capture posted: capped by its cap, by what the hold has left, nothing when it posted nothing', async () => {
      const renter = await account([100_000n, RUB_90]);
      const provider = await account();
      const hold = await lease(renter.accountId, 15_000n);
      const revenueBefore = await available(SYSTEM_ACCOUNTS.revenue);
      const lossesBefore = await available(SYSTEM_ACCOUNTS.losses);

      const capped = ok(await take(hold.id, 12_000n, 10_000n, payee(provider.accountId, 11_000n)));
      expect(capped).toMatchObject({ transfer: { postedMicros: 10_000n }, lossMicros: 2_000n });
      expect(await ledger().getTransfer(`earning:${capped.transfer.id}`)).toMatchObject({
        amountMicros: 10_000n,
        postedMicros: 10_000n,
      });
      const drained = ok(await take(hold.id, 8_000n, 8_000n, payee(provider.accountId, 7_000n)));
      expect(drained).toMatchObject({ transfer: { postedMicros: 5_000n }, lossMicros: 3_000n });
      expect(await ledger().getTransfer(`earning:${drained.transfer.id}`)).toMatchObject({
        amountMicros: 5_000n,
        postedMicros: 5_000n,
      });
      expect(await ledger().getHold(hold.id)).toMatchObject({ status: 'pending', amountMicros: 0n });

      const empty = ok(await take(hold.id, 1_000n, 1_000n, payee(provider.accountId, 1_000n)));
      expect(empty).toMatchObject({ transfer: { postedMicros: 0n }, lossMicros: 1_000n });
      const unpaid = ok(
        await take((await lease(renter.accountId, 2_000n)).id, 1_000n, 1_000n, payee(provider.accountId, 0n)),
      );
      for (const t of [empty.transfer, unpaid.transfer])
        expect(await ledger().getTransfer(`earning:${t.id}`)).toBeNull();
      expect((await ledger().listLots(provider.accountId)).map((l) => [l.id, l.remainingMicros])).toEqual([
        [`earning:${capped.transfer.id}`, 10_000n],
        [`earning:${drained.transfer.id}`, 5_000n],
      ]);
      expect(await balance(provider.accountId)).toEqual([15_000n, 0n]);
      // Revenue: what was posted (10_000 + 5_000 + 0 + 1_000) less the payouts (15_000), plus the losses it absorbed (6_000).
      expect((await available(SYSTEM_ACCOUNTS.revenue)) - revenueBefore).toBe(7_000n);
      expect((await available(SYSTEM_ACCOUNTS.losses)) - lossesBefore).toBe(-6_000n);
      expect(await balance(renter.accountId)).toEqual([83_000n, 1_000n]);
      expect(await ledger().sumOfAllBalances()).toBe(0n);
      for (const h of [hold.id, unpaid.transfer.holdId!]) ok(await ledger().release({ holdId: h, nowMs: T0 + 20 }));
      expect(await balance(renter.accountId)).toEqual([84_000n, 0n]);
    });

    it('pays once however often the capture is replayed, in one batch or later, and never for a refused capture', async () => {
      const renter = await account([100_000n, RUB_90]);
      const provider = await account();
      const hold = await lease(renter.accountId, 50_000n);
      const id = newId('rental');
      const outcomes = (
        await Promise.all(
          Array.from({ length: 5 }, () => take(hold.id, 10_000n, 10_000n, payee(provider.accountId, 9_000n), id)),
        )
      ).map(ok);
      expect(outcomes.filter((o) => !o.replayed)).toHaveLength(1);
      const revenueAfter = await available(SYSTEM_ACCOUNTS.revenue);
      // The payee is not part of the request: a replay naming another share, or another payee, still pays nothing.
      const original = { ...outcomes.find((o) => !o.replayed), replayed: true, usage: null };
      expect(await take(hold.id, 10_000n, 10_000n, payee(provider.accountId, 10_000n), id, T0 + 99)).toEqual(original);
      expect(await take(hold.id, 10_000n, 10_000n, payee(newId('acc'), 9_000n), id)).toEqual(original);
      expect(await take(hold.id, 10_001n, 10_001n, payee(provider.accountId, 9_000n), id)).toEqual({
        ok: false,
        reason: 'idempotency_conflict',
      });
      expect(await balance(provider.accountId)).toEqual([9_000n, 0n]);
      expect(await balance(renter.accountId)).toEqual([50_000n, 40_000n]);
      expect(await ledger().getHold(hold.id)).toMatchObject({ status: 'pending', amountMicros: 40_000n });
      expect(await available(SYSTEM_ACCOUNTS.revenue)).toBe(revenueAfter);

      const due = await lease(renter.accountId, 5_000n, 1_000);
      ok(await ledger().release({ holdId: hold.id, nowMs: T0 + 20 }));
      const refused = [
        [
          await take(hold.id, 1_000n, 1_000n, payee(provider.accountId, 1_000n)),
          { ok: false, reason: 'hold_not_pending', status: 'voided' },
        ],
        [
          await take(due.id, 1_000n, 1_000n, payee(provider.accountId, 1_000n), newId('rental'), T0 + 1_000),
          { ok: false, reason: 'hold_not_pending', status: 'expired' },
        ],
        [
          await take(newId('lease'), 1_000n, 1_000n, payee(provider.accountId, 1_000n)),
          { ok: false, reason: 'hold_not_found' },
        ],
      ] as const;
      for (const [outcome, expected] of refused) expect(outcome).toEqual(expected);
      expect(await balance(provider.accountId)).toEqual([9_000n, 0n]);
      expect((await ledger().listLots(provider.accountId)).map((l) => l.id)).toEqual([`earning:${id}`]);
      expect(await balance(renter.accountId)).toEqual([90_000n, 0n]);
      expect(await ledger().sumOfAllBalances()).toBe(0n);
    });

    it('captures concurrently from holds whose payees are each other’s renters, every balance exact', async () => {
      const provider = await account([10_000n, RUB_90]);
      const renters = await Promise.all(Array.from({ length: 10 }, () => account([10_000n, RUB_90])));
      const providerHold = await lease(provider.accountId, 10_000n);
      const holds = await Promise.all(renters.map(({ accountId }) => lease(accountId, 6_000n)));
      // Each renter's hold pays the provider, and the provider's hold pays each renter: payees and payers cross within batches.
      const outcomes = await Promise.all(
        renters.flatMap(({ accountId }, i) => [
          take(holds[i]!.id, 5_000n, 5_000n, payee(provider.accountId, 4_000n)),
          take(providerHold.id, 1_000n, 1_000n, payee(accountId, 500n)),
        ]),
      );
      expect(outcomes.every((o) => o.ok)).toBe(true);
      expect(await balance(provider.accountId)).toEqual([10n * 4_000n, 0n]);
      for (const { accountId } of renters) expect(await balance(accountId)).toEqual([4_000n + 500n, 1_000n]);
      for (const h of [providerHold, ...holds]) ok(await ledger().release({ holdId: h.id, nowMs: T0 + 20 }));
      for (const { accountId } of renters) expect(await balance(accountId)).toEqual([5_500n, 0n]);
      expect(await ledger().sumOfAllBalances()).toBe(0n);
    });

    it('refuses a payee owed a negative amount at the call, and the hold’s own account as payee, writing nothing', async () => {
      const renter = await account([10_000n, RUB_90]);
      const hold = await lease(renter.accountId, 5_000n);
      expect(() => take(hold.id, 1_000n, 1_000n, payee(newId('acc'), -1n))).toThrow(RangeError);
      // Only the ledger knows whose hold it is: the call fails alone, its neighbours in the batch land.
      const provider = await account();
      const [self, other] = await Promise.allSettled([
        take(hold.id, 1_000n, 1_000n, payee(renter.accountId, 500n)),
        take(hold.id, 1_000n, 1_000n, payee(provider.accountId, 500n)),
      ]);
      expect(self).toMatchObject({ status: 'rejected', reason: expect.any(RangeError) });
      expect(other).toMatchObject({ status: 'fulfilled', value: { ok: true, transfer: { postedMicros: 1_000n } } });
      await expect(take(hold.id, 1_000n, 1_000n, payee(renter.accountId, 0n))).rejects.toThrow(/another account/);
      expect(await ledger().getHold(hold.id)).toMatchObject({ status: 'pending', amountMicros: 4_000n });
      expect(await balance(renter.accountId)).toEqual([5_000n, 4_000n]);
      expect(await balance(provider.accountId)).toEqual([500n, 0n]);
      ok(await ledger().release({ holdId: hold.id, nowMs: T0 + 20 }));
    });
  });
}

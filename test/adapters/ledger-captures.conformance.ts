/**
 * The ledger conformance cases of captures (src/adapters/ledger/README.md "Captures"): charges taken from a
 * pending hold, each with its usage line, the hold staying pending with the rest. Registered inside each engine's
 * suite by ledger.conformance.ts, which owns the subject, the accounts and the after-each invariants.
 */
import { describe, expect, it } from 'vitest';
import type { Micros } from '../../src/adapters/ledger/index.js';
import { SYSTEM_ACCOUNTS } from '../../src/adapters/ledger/index.js';
import { newId } from '../../src/lib/ids.js';
import type { LedgerSuite } from './ledger.conformance.js';
import { alloc, line, ok, RUB_90, RUB_100, T0, YEAR_MS } from './ledger-fixtures.js';

export function ledgerCaptureCases({ subject, account, batches }: LedgerSuite): void {
  const ledger = () => subject().ledger;
  const hold = (accountId: string, amountMicros: Micros, ttlMs = YEAR_MS) =>
    ledger().hold({ id: newId('lease'), accountId, amountMicros, nowMs: T0, ttlMs });
  const capture = (holdId: string, amountMicros: Micros, capMicros: Micros, id = newId('chg'), nowMs = T0 + 10) =>
    ledger().capture({ id, holdId, amountMicros, capMicros, nowMs, usage: line() });
  const balance = async (accountId: string) => {
    const b = await ledger().getBalance(accountId);
    return [b.availableMicros, b.heldMicros];
  };

  describe('captures', () => {
    it('posts parts of a pending hold, each with its usage line, and leaves the rest reserved until released', async () => {
      const { accountId, lotIds } = await account([100_000n, RUB_90]);
      const lease = ok(await hold(accountId, 60_000n)).hold;
      const first = ok(await capture(lease.id, 10_000n, 20_000n));
      expect(first.transfer).toMatchObject({
        kind: 'capture',
        accountId,
        amountMicros: 10_000n,
        postedMicros: 10_000n,
        holdId: lease.id,
        allocations: [alloc(lotIds[0]!, 10_000n, RUB_90)],
      });
      expect(first).toMatchObject({
        replayed: false,
        lossMicros: 0n,
        usage: { costMicros: 10_000n, transferId: first.transfer.id, accountId },
      });
      expect(await balance(accountId)).toEqual([40_000n, 50_000n]);
      expect(await ledger().getHold(lease.id)).toMatchObject({
        status: 'pending',
        amountMicros: 50_000n,
        postedMicros: null,
      });

      // Asked beyond its cap: the cap is posted, the rest is the platform's loss.
      const second = ok(await capture(lease.id, 30_000n, 20_000n));
      expect(second).toMatchObject({
        transfer: { postedMicros: 20_000n },
        lossMicros: 10_000n,
        usage: { costMicros: 20_000n },
      });
      expect(await ledger().getTransfer(`loss:${second.transfer.id}`)).toMatchObject({
        kind: 'loss',
        amountMicros: 10_000n,
      });
      expect(await balance(accountId)).toEqual([40_000n, 30_000n]);

      expect(await ledger().release({ holdId: lease.id, nowMs: T0 + 20 })).toMatchObject({
        ok: true,
        hold: { status: 'voided', amountMicros: 30_000n },
      });
      expect(await balance(accountId)).toEqual([70_000n, 0n]);
      expect(await ledger().postedSpend(accountId)).toBe(30_000n);
      const lines = await subject().usage.list(accountId, {}, { limit: 10, offset: 0 });
      expect(lines.map((u) => u.costMicros).sort()).toEqual([10_000n, 20_000n]);
      expect(await capture(lease.id, 1n, 1n)).toEqual({ ok: false, reason: 'hold_not_pending', status: 'voided' });
    });

    it('tells its caller once when it is handed off to the database, before its outcome (README.md "Handed off")', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const lease = ok(await hold(accountId, 50_000n)).hold;
      const events: string[] = [];
      const captured = ledger()
        .capture({
          ...{ id: newId('chg'), holdId: lease.id, amountMicros: 4_000n, capMicros: 5_000n, nowMs: T0 + 10 },
          usage: line(),
          onHandedOff: () => events.push('handed off'),
        })
        .then((outcome) => (events.push('outcome'), outcome));
      expect(ok(await captured).transfer.postedMicros).toBe(4_000n);
      expect(events).toEqual(subject().handsOff ? ['handed off', 'outcome'] : ['outcome']);
    });

    it('replays a capture by id, refuses the id for anything else, and writes its line once', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const lease = ok(await hold(accountId, 50_000n)).hold;
      const other = ok(await hold(accountId, 10_000n)).hold;
      const id = newId('chg');
      const first = ok(await capture(lease.id, 4_000n, 5_000n, id));
      expect(await capture(lease.id, 4_000n, 5_000n, id, T0 + 99)).toEqual({ ...first, replayed: true, usage: null });
      expect(await capture(lease.id, 4_001n, 5_000n, id)).toEqual({ ok: false, reason: 'idempotency_conflict' });
      expect(await capture(other.id, 4_000n, 5_000n, id)).toEqual({ ok: false, reason: 'idempotency_conflict' });
      expect(await ledger().debit({ id, accountId, amountMicros: 4_000n, nowMs: T0 })).toEqual({
        ok: false,
        reason: 'idempotency_conflict',
      });
      expect(await subject().usage.list(accountId, {}, { limit: 10, offset: 0 })).toHaveLength(1);
      expect(await balance(accountId)).toEqual([40_000n, 56_000n]);
      for (const h of [lease, other]) ok(await ledger().release({ holdId: h.id, nowMs: T0 + 20 }));
    });

    it('never takes more than the hold has left: the excess is a loss, and the hold stays pending at zero', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const lease = ok(await hold(accountId, 5_000n)).hold;
      const lossesBefore = (await ledger().getBalance(SYSTEM_ACCOUNTS.losses)).availableMicros;
      expect(ok(await capture(lease.id, 8_000n, 8_000n))).toMatchObject({
        transfer: { postedMicros: 5_000n },
        lossMicros: 3_000n,
      });
      expect(await ledger().getHold(lease.id)).toMatchObject({ status: 'pending', amountMicros: 0n });
      expect((await ledger().getBalance(SYSTEM_ACCOUNTS.losses)).availableMicros - lossesBefore).toBe(-3_000n);
      expect(await balance(accountId)).toEqual([95_000n, 0n]);
      ok(await ledger().release({ holdId: lease.id, nowMs: T0 + 20 }));
    });

    it('refunds a capture into the lots it took, settles what a hold has left, and expires only the remainder', async () => {
      const { accountId, lotIds } = await account([6_000n, RUB_90], [10_000n, RUB_100]);
      const [lotA, lotB] = lotIds as [string, string];
      const lease = ok(await hold(accountId, 12_000n)).hold;
      const taken = ok(await capture(lease.id, 8_000n, 8_000n)).transfer;
      expect(taken.allocations).toEqual([alloc(lotA, 6_000n, RUB_90), alloc(lotB, 2_000n, RUB_100)]);
      const refunded = ok(
        await ledger().refund({ id: newId('rf'), refundOf: taken.id, amountMicros: 3_000n, nowMs: T0 + 20 }),
      ).transfer;
      expect(refunded.allocations).toEqual([alloc(lotB, -2_000n, RUB_100), alloc(lotA, -1_000n, RUB_90)]);
      // What the hold has left (4_000) is what a settle can post.
      expect(ok(await ledger().settle({ holdId: lease.id, amountMicros: 5_000n, nowMs: T0 + 30 }))).toMatchObject({
        hold: { postedMicros: 4_000n },
        lossMicros: 1_000n,
      });
      expect(await ledger().postedSpend(accountId)).toBe(8_000n - 3_000n + 4_000n);

      const short = ok(await hold(accountId, 3_000n, 1_000)).hold;
      ok(await capture(short.id, 1_000n, 1_000n, newId('chg'), T0 + 500));
      expect(await capture(short.id, 1_000n, 1_000n, newId('chg'), T0 + 1_000)).toEqual({
        ok: false,
        reason: 'hold_not_pending',
        status: 'expired',
      });
      expect(await balance(accountId)).toEqual([16_000n - 9_000n - 1_000n, 0n]);
      expect(await capture(newId('lease'), 1n, 1n)).toEqual({ ok: false, reason: 'hold_not_found' });
    });

    it('takes many captures of one hold in few writes, together never more than the hold', async () => {
      const { accountId } = await account([100_000n, RUB_90]);
      const lease = ok(await hold(accountId, 10_000n)).hold;
      batches.length = 0;
      const outcomes = await Promise.all(Array.from({ length: 30 }, () => capture(lease.id, 500n, 500n)));
      expect(batches.length).toBeLessThanOrEqual(3);
      const posted = outcomes.map((o) => ok(o).transfer.postedMicros);
      expect(posted.reduce((s, p) => s + p, 0n)).toBe(10_000n);
      expect(outcomes.filter((o) => ok(o).lossMicros === 500n)).toHaveLength(10);
      expect(await balance(accountId)).toEqual([90_000n, 0n]);
      ok(await ledger().release({ holdId: lease.id, nowMs: T0 + 20 }));
    });
  });
}

/**
 * The one behavioural contract of the withdrawal-store port (issue 27 item 4, DESIGN.md 11), run against every
 * implementation: the address book, and `create` admitting a withdrawal only within its caps (which `check` tells
 * beforehand), one request at a time even when requests race from two processes. States and reads:
 * withdrawal-store-states.conformance.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  NewWithdrawal,
  WithdrawalAddress,
  WithdrawalCaps,
  WithdrawalStore,
} from '../../src/adapters/withdrawal-store/index.js';
import { newId } from '../../src/lib/ids.js';

export interface WithdrawalStoreSubject {
  store: WithdrawalStore;
  /** The same database seen by another process (its own connections), for the races; absent: `store` again. */
  other?: WithdrawalStore;
  cleanup(): Promise<void>;
}

/** The day the tests run in: every withdrawal of a test is created at or after it unless it says otherwise. */
export const DAY_START = Date.parse('2026-06-01T00:00:00.000Z');
export const T0 = DAY_START + 3_600_000;
const DAY_MS = 86_400_000;

/** Caps no test reaches unless it lowers one: everyone's daily total is shared by every test of a suite. */
export const WIDE_CAPS: WithdrawalCaps = {
  accountTotalMicros: 1_000_000_000_000n,
  accountDailyMicros: 1_000_000_000_000n,
  globalDailyMicros: 1_000_000_000_000_000n,
  dayStartMs: DAY_START,
};

export function newWithdrawal(accountId: string, amountMicros: bigint, overrides: Partial<NewWithdrawal> = {}) {
  return {
    id: newId('wd'),
    accountId,
    address: 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf',
    amountMicros,
    feeMicros: 0n,
    createdAtMs: T0,
    ...overrides,
  } satisfies NewWithdrawal;
}

/** Creates, failing the test if refused; answers the record. */
export async function created(store: WithdrawalStore, w: NewWithdrawal, caps: WithdrawalCaps = WIDE_CAPS) {
  const outcome = await store.create(w, caps);
  if (!outcome.ok) throw new Error(`fixture withdrawal refused: ${outcome.reason}`);
  return outcome.withdrawal;
}

export function withdrawalStoreConformance(name: string, make: () => Promise<WithdrawalStoreSubject>): void {
  describe(`WithdrawalStore conformance: ${name}`, () => {
    let subject: WithdrawalStoreSubject | undefined;
    const store = (): WithdrawalStore => subject!.store;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    /** `create`, after `check` of the same request: the check must foretell the refusal (or null for an admission). */
    const attempt = async (w: NewWithdrawal, caps: WithdrawalCaps) => {
      const checked = await store().check(w, caps);
      const outcome = await store().create(w, caps);
      expect(checked).toEqual(outcome.ok ? null : outcome);
      return outcome;
    };

    const address = (accountId: string, overrides: Partial<WithdrawalAddress> = {}): WithdrawalAddress => ({
      id: newId('wad'),
      accountId,
      address: `T${newId('a').slice(2, 22)}`,
      label: null,
      createdAtMs: T0,
      usableFromMs: T0 + DAY_MS,
      ...overrides,
    });

    it('keeps an account’s addresses oldest first, refuses one twice, and removes only the owner’s', async () => {
      const [alice, bob] = [newId('acc'), newId('acc')];
      const later = address(alice, { label: 'cold wallet', createdAtMs: T0 + 5 });
      const earlier = address(alice, { createdAtMs: T0 });
      expect(await store().addAddress(later)).toEqual({ ok: true });
      expect(await store().addAddress(earlier)).toEqual({ ok: true });
      expect(await store().addAddress({ ...address(alice), address: later.address })).toEqual({
        ok: false,
        reason: 'address_taken',
      });
      const bobs = address(bob, { address: later.address });
      expect(await store().addAddress(bobs)).toEqual({ ok: true }); // another account may list the same address
      expect(await store().listAddresses(alice)).toEqual([earlier, later]);
      expect(await store().getAddress(later.id)).toEqual(later);
      expect(await store().getAddress('wad_missing')).toBeNull();

      expect(await store().removeAddress(bob, later.id)).toBe(false);
      expect(await store().removeAddress(alice, later.id)).toBe(true);
      expect(await store().removeAddress(alice, later.id)).toBe(false);
      expect(await store().listAddresses(alice)).toEqual([earlier]);
      expect(await store().listAddresses(bob)).toEqual([bobs]);
      const again = address(alice, { address: later.address });
      expect(await store().addAddress(again)).toEqual({ ok: true }); // removed: it may be listed anew
    });

    it('admits a withdrawal within its caps in state requested, counted at amount + fee', async () => {
      const accountId = newId('acc');
      const request = newWithdrawal(accountId, 25_000_000n, { feeMicros: 1_000_000n, createdAtMs: T0 + 7 });
      expect(await store().check(request, WIDE_CAPS)).toBeNull();
      expect(await store().get(request.id)).toBeNull(); // a check writes nothing
      expect(await store().activeTotal(accountId)).toBe(0n);
      const outcome = await attempt(request, WIDE_CAPS);
      const expected = {
        ...request,
        status: 'requested',
        approvedBy: null,
        signed: null,
        blockNumber: null,
        failureReason: null,
        updatedAtMs: T0 + 7,
        finishedAtMs: null,
      };
      expect(outcome).toEqual({ ok: true, withdrawal: expected });
      expect(await store().get(request.id)).toEqual(expected);
      expect(await store().get('wd_missing')).toBeNull();
      expect(await store().activeTotal(accountId)).toBe(26_000_000n);
    });

    it('refuses past the account’s total, exactly to the micro-dollar, saying what is left', async () => {
      const accountId = newId('acc');
      const caps = { ...WIDE_CAPS, accountTotalMicros: 10_000_000n };
      await created(store(), newWithdrawal(accountId, 6_000_000n, { feeMicros: 500_000n }), caps);
      const over = newWithdrawal(accountId, 3_600_000n, { feeMicros: 500_000n });
      expect(await attempt(over, caps)).toEqual({
        ok: false,
        reason: 'account_total',
        remainingMicros: 3_500_000n,
      });
      expect(await store().get(over.id)).toBeNull();
      await created(store(), newWithdrawal(accountId, 3_000_000n, { feeMicros: 500_000n }), caps); // to the cap
      expect(await attempt(newWithdrawal(accountId, 1n), caps)).toEqual({
        ok: false,
        reason: 'account_total',
        remainingMicros: 0n,
      });
      // A cap lowered below what is already out leaves nothing, never less.
      expect(await attempt(newWithdrawal(accountId, 1n), { ...caps, accountTotalMicros: 4_000_000n })).toEqual({
        ok: false,
        reason: 'account_total',
        remainingMicros: 0n,
      });
    });

    it('refuses past the account’s daily total, counting only withdrawals since the day began', async () => {
      const accountId = newId('acc');
      const caps = { ...WIDE_CAPS, accountTotalMicros: 10_000_000n, accountDailyMicros: 4_000_000n };
      await created(store(), newWithdrawal(accountId, 5_000_000n, { createdAtMs: DAY_START - 1 })); // yesterday
      await created(store(), newWithdrawal(accountId, 3_000_000n, { createdAtMs: DAY_START }), caps);
      expect(await attempt(newWithdrawal(accountId, 500_000n, { feeMicros: 1_000_000n }), caps)).toEqual({
        ok: false,
        reason: 'account_daily',
        remainingMicros: 1_000_000n,
      });
      // Past both: the account's total is named first.
      expect(await attempt(newWithdrawal(accountId, 2_500_000n), caps)).toEqual({
        ok: false,
        reason: 'account_total',
        remainingMicros: 2_000_000n,
      });
      await created(store(), newWithdrawal(accountId, 1_000_000n), caps);
    });

    it('refuses past everyone’s daily total, whoever withdrew it', async () => {
      // A day after every other test's withdrawals, so this test's are the only ones in it.
      const day = DAY_START + 1_000 * DAY_MS;
      const caps = { ...WIDE_CAPS, globalDailyMicros: 3_000_000n, dayStartMs: day };
      const [first, second] = [newId('acc'), newId('acc')];
      await created(store(), newWithdrawal(first, 9_000_000n, { createdAtMs: day - 1 }), WIDE_CAPS);
      await created(store(), newWithdrawal(first, 2_000_000n, { createdAtMs: day }), caps);
      expect(await attempt(newWithdrawal(second, 1_500_000n, { createdAtMs: day + 1 }), caps)).toEqual({
        ok: false,
        reason: 'global_daily',
        remainingMicros: 1_000_000n,
      });
      await created(store(), newWithdrawal(second, 1_000_000n, { createdAtMs: day + 1 }), caps);
      expect(await attempt(newWithdrawal(second, 1n, { createdAtMs: day + 2 }), caps)).toMatchObject({
        reason: 'global_daily',
        remainingMicros: 0n,
      });
    });

    it('a failed or rejected withdrawal gave its money back: it no longer counts against any cap', async () => {
      const accountId = newId('acc');
      const caps = { ...WIDE_CAPS, accountTotalMicros: 5_000_000n, accountDailyMicros: 5_000_000n };
      const failing = await created(store(), newWithdrawal(accountId, 4_000_000n), caps);
      expect((await attempt(newWithdrawal(accountId, 2_000_000n), caps)).ok).toBe(false);
      const finished = { finishedAtMs: T0 + 1 };
      await store().transition(failing.id, ['requested'], { status: 'failed', ...finished }, T0 + 1);
      const rejecting = await created(store(), newWithdrawal(accountId, 2_000_000n), caps);
      await store().transition(rejecting.id, ['requested'], { status: 'pending_review' }, T0 + 2);
      await store().transition(rejecting.id, ['pending_review'], { status: 'rejected', ...finished }, T0 + 3);
      expect(await store().activeTotal(accountId)).toBe(0n);
      await created(store(), newWithdrawal(accountId, 5_000_000n), caps);
    });

    it('20 concurrent requests (over both connections where there are two), each alone within the account’s total: exactly ⌊cap / amount⌋ pass', async () => {
      const accountId = newId('acc');
      const stores = [store(), subject!.other ?? store()];
      const caps = { ...WIDE_CAPS, accountTotalMicros: 8_200_000n };
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          stores[i % 2]!.create(newWithdrawal(accountId, 1_000_000n, { feeMicros: 100_000n }), caps),
        ),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(7); // ⌊8.2 / 1.1⌋
      // Every refusal saw all seven admitted before it.
      for (const o of outcomes.filter((o) => !o.ok))
        expect(o).toEqual({ ok: false, reason: 'account_total', remainingMicros: 500_000n });
      expect(await store().activeTotal(accountId)).toBe(7_700_000n);
      expect(await stores[1]!.activeTotal(accountId)).toBe(7_700_000n);
    });
  });
}

/**
 * The withdrawal-store port's state changes and reads (issue 27 item 4; research/payments.md 8.2, 8.4), beside
 * withdrawalStoreConformance and run against the same implementations: every change is a compare-and-set on the
 * states it expects, and a withdrawal holds at most one signed transaction, ever.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SignedTransaction, WithdrawalStore } from '../../src/adapters/withdrawal-store/index.js';
import { newId } from '../../src/lib/ids.js';
import { created, newWithdrawal, T0, type WithdrawalStoreSubject } from './withdrawal-store.conformance.js';

const signature = (): SignedTransaction => ({
  txid: newId('tx').slice(3).padEnd(64, '0').toLowerCase(),
  hex: `0a02${newId('b').slice(2)}`,
  expirationMs: T0 + 60_000,
});

export function withdrawalStoreStatesConformance(name: string, make: () => Promise<WithdrawalStoreSubject>): void {
  describe(`WithdrawalStore states: ${name}`, () => {
    let subject: WithdrawalStoreSubject | undefined;
    const store = (): WithdrawalStore => subject!.store;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    /** A withdrawal of a new account, moved to `approved` as the pipeline does. */
    const approved = async (amountMicros = 1_000_000n) => {
      const w = await created(store(), newWithdrawal(newId('acc'), amountMicros));
      const moved = await store().transition(w.id, ['requested'], { status: 'approved', approvedBy: 'auto' }, T0 + 1);
      expect(moved?.status).toBe('approved');
      return w.id;
    };

    it('changes state only from an expected one, setting the fields the change carries', async () => {
      const w = await created(store(), newWithdrawal(newId('acc'), 3_000_000n));
      expect(await store().transition(w.id, ['approved', 'signed'], { status: 'broadcast' }, T0 + 1)).toBeNull();
      expect(await store().get(w.id)).toEqual(w);
      expect(await store().transition('wd_missing', ['requested'], { status: 'approved' }, T0 + 1)).toBeNull();

      const review = await store().transition(w.id, ['requested'], { status: 'pending_review' }, T0 + 2);
      expect(review).toEqual({ ...w, status: 'pending_review', updatedAtMs: T0 + 2 });
      const change = { status: 'approved', approvedBy: 'ops-anna' } as const;
      const approval = await store().transition(w.id, ['requested', 'pending_review'], change, T0 + 3);
      expect(approval).toEqual({ ...w, status: 'approved', approvedBy: 'ops-anna', updatedAtMs: T0 + 3 });
      expect(await store().get(w.id)).toEqual(approval);
      const failure = { status: 'failed', failureReason: 'expired unconfirmed', finishedAtMs: T0 + 9 } as const;
      expect(await store().transition(w.id, ['approved'], failure, T0 + 9)).toEqual({
        ...approval,
        status: 'failed',
        failureReason: 'expired unconfirmed',
        finishedAtMs: T0 + 9,
        updatedAtMs: T0 + 9,
      });
    });

    it('of concurrent changes from one state exactly one wins', async () => {
      const id = await approved();
      const outcomes = await Promise.all(
        ['failed', 'rejected', 'pending_review', 'requested', 'completed', 'broadcast'].map((status) =>
          store().transition(id, ['approved'], { status: status as 'failed' }, T0 + 2),
        ),
      );
      const winners = outcomes.filter((o) => o !== null);
      expect(winners).toHaveLength(1);
      expect((await store().get(id))?.status).toBe(winners[0]!.status);
    });

    it('records a completion with its block and finish time', async () => {
      const id = await approved();
      const signed = await store().recordSignature(id, signature(), T0 + 2);
      await store().transition(id, ['signed'], { status: 'broadcast' }, T0 + 3);
      const change = { status: 'completed', blockNumber: 71_234_567, finishedAtMs: T0 + 60 } as const;
      expect(await store().transition(id, ['broadcast'], change, T0 + 60)).toEqual({
        ...signed,
        status: 'completed',
        blockNumber: 71_234_567,
        finishedAtMs: T0 + 60,
        updatedAtMs: T0 + 60,
      });
    });

    it('stores one signed transaction, only for an approved withdrawal, and never replaces it', async () => {
      const waiting = await created(store(), newWithdrawal(newId('acc'), 1_000_000n));
      expect(await store().recordSignature(waiting.id, signature(), T0 + 1)).toBeNull();
      expect(await store().recordSignature('wd_missing', signature(), T0 + 1)).toBeNull();

      const id = await approved();
      const first = signature();
      const signed = await store().recordSignature(id, first, T0 + 2);
      expect(signed).toMatchObject({ id, status: 'signed', signed: first, approvedBy: 'auto', updatedAtMs: T0 + 2 });
      expect(await store().recordSignature(id, signature(), T0 + 3)).toBeNull();
      // Even moved back to approved, it keeps the bytes it has: a second signature would be a second payment.
      await store().transition(id, ['signed'], { status: 'approved' }, T0 + 4);
      expect(await store().recordSignature(id, signature(), T0 + 5)).toBeNull();
      expect((await store().get(id))?.signed).toEqual(first);
    });

    it('of two signers racing for one withdrawal exactly one stores its bytes', async () => {
      const id = await approved();
      const [a, b] = [signature(), signature()];
      const outcomes = await Promise.all([
        store().recordSignature(id, a, T0 + 2),
        store().recordSignature(id, b, T0 + 2),
      ]);
      const winners = outcomes.filter((o) => o !== null);
      expect(winners).toHaveLength(1);
      expect((await store().get(id))?.signed).toEqual(winners[0]!.signed);
    });

    it('refuses a transaction id another withdrawal holds: one transfer never settles two', async () => {
      const [first, second] = [await approved(), await approved()];
      const signed = signature();
      await store().recordSignature(first, signed, T0 + 2);
      await expect(store().recordSignature(second, { ...signature(), txid: signed.txid }, T0 + 2)).rejects.toThrow();
      expect(await store().get(second)).toMatchObject({ status: 'approved', signed: null });
    });

    it('hands out withdrawals in the given states oldest first, up to the limit', async () => {
      // Older than every other test's withdrawals, so these come first.
      const early = T0 - 100 * 86_400_000;
      const at = (createdAtMs: number) => created(store(), newWithdrawal(newId('acc'), 1n, { createdAtMs }));
      const [third, first, second, other] = await Promise.all([at(early + 2), at(early), at(early + 1), at(early)]);
      await store().transition(first!.id, ['requested'], { status: 'pending_review' }, T0);
      await store().transition(third!.id, ['requested'], { status: 'pending_review' }, T0);
      await store().transition(other!.id, ['requested'], { status: 'rejected', finishedAtMs: T0 }, T0);
      const due = await store().inStatus(['pending_review', 'requested'], 2);
      expect(due.map((w) => w.id)).toEqual([first!.id, second!.id]);
      const reviews = (await store().inStatus(['pending_review'], 100)).map((w) => w.id);
      expect(reviews.slice(0, 2)).toEqual([first!.id, third!.id]);
      expect(reviews).not.toContain(second!.id);
    });

    it('lists an account newest first, ties by id, paged; only its own', async () => {
      const accountId = newId('acc');
      const made = [];
      for (const createdAtMs of [T0, T0 + 1, T0 + 2, T0 + 2])
        made.push(await created(store(), newWithdrawal(accountId, 1_000n, { createdAtMs })));
      await created(store(), newWithdrawal(newId('acc'), 1_000n, { createdAtMs: T0 + 3 }));
      const [a, b, c, d] = made;
      const [newer, older] = c!.id > d!.id ? [c!, d!] : [d!, c!];
      expect(await store().list(accountId, { limit: 10, offset: 0 })).toEqual([newer, older, b, a]);
      expect((await store().list(accountId, { limit: 2, offset: 1 })).map((w) => w.id)).toEqual([older.id, b!.id]);
      expect(await store().list(accountId, { limit: 10, offset: 4 })).toEqual([]);
    });

    it('scans every withdrawal in id order, a page at a time', async () => {
      await Promise.all(Array.from({ length: 5 }, () => created(store(), newWithdrawal(newId('acc'), 1n))));
      const all: string[] = [];
      for (let afterId: string | null = null; ; ) {
        const page: { id: string }[] = await store().scan(afterId, 2);
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(2);
        all.push(...page.map((w) => w.id));
        afterId = page.at(-1)!.id;
      }
      expect(all).toEqual([...all].sort());
      expect(new Set(all).size).toBe(all.length);
      expect(all.length).toBeGreaterThanOrEqual(5);
    });

    it('totals an account’s active withdrawals at amount + fee, completed included, given back excluded', async () => {
      const accountId = newId('acc');
      expect(await store().activeTotal(accountId)).toBe(0n);
      const fee = { feeMicros: 250_000n };
      const [kept, done, gone] = await Promise.all(
        [1_000_000n, 2_000_000n, 4_000_000n].map((amount) => created(store(), newWithdrawal(accountId, amount, fee))),
      );
      await created(store(), newWithdrawal(newId('acc'), 8_000_000n));
      await store().transition(done!.id, ['requested'], { status: 'completed', finishedAtMs: T0 }, T0);
      await store().transition(gone!.id, ['requested'], { status: 'failed', finishedAtMs: T0 }, T0);
      expect(kept?.status).toBe('requested');
      expect(await store().activeTotal(accountId)).toBe(3_500_000n);
    });
  });
}

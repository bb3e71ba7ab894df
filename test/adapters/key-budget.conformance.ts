/**
 * The one behavioural contract of the key-budget port (issue 26 item 6), run against every implementation: a hold
 * is taken only while what the key spent in the period (its usage lines, written by the ledger with their charge)
 * plus its unexpired holds plus the new one stay within the limit; many reserves at once never pass it together.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyBudgetStore, KeyHoldRequest } from '../../src/adapters/key-budget/index.js';
import type { Ledger } from '../../src/adapters/ledger/index.js';
import { newId, newSortableId } from '../../src/lib/ids.js';

export interface KeyBudgetSubject {
  store: KeyBudgetStore;
  /** The ledger whose charges write the usage lines the store reads. */
  ledger: Ledger;
  cleanup(): Promise<void>;
}

const PERIOD_START = Date.parse('2026-06-01T00:00:00.000Z');
const T0 = PERIOD_START + 3_600_000;
const TTL_MS = 60_000;

export function keyBudgetConformance(name: string, make: () => Promise<KeyBudgetSubject>): void {
  describe(`KeyBudgetStore conformance: ${name}`, () => {
    let subject: KeyBudgetSubject | undefined;
    const store = (): KeyBudgetStore => subject!.store;
    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    /** A funded account with one key. */
    const newKey = async () => {
      const accountId = newId('acc');
      const keyId = newId('key');
      const lot = { currency: 'USD' as const, fxRateRubMicro: 90_000_000n };
      await subject!.ledger.credit({ id: newId('cr'), accountId, amountMicros: 1_000_000_000n, lot, nowMs: 0 });
      return { accountId, keyId };
    };

    /** A charge of the key landing at `atMs`, with its usage line, as Billing posts one. */
    const charge = async (key: { accountId: string; keyId: string }, costMicros: bigint, atMs: number) => {
      const requestId = newId('req');
      const outcome = await subject!.ledger.debit({
        id: `charge:${requestId}`,
        accountId: key.accountId,
        amountMicros: costMicros,
        nowMs: atMs,
        usage: {
          id: newSortableId('log'),
          keyId: key.keyId,
          requestId,
          model: 'gpt-5-mini',
          kind: 'chat',
          endpoint: '/v1/compat/chat/completions',
          promptTokens: 1,
          completionTokens: 1,
          cachedTokens: 0,
          reasoningTokens: 0,
          totalTokens: 2,
          billedInRub: false,
          createdAtMs: atMs,
          durationMs: 1,
          metadata: {},
        },
      });
      expect(outcome.ok).toBe(true);
    };

    const request = (
      key: { accountId: string; keyId: string },
      amountMicros: bigint,
      limitMicros: bigint,
      overrides: Partial<KeyHoldRequest> = {},
    ): KeyHoldRequest => ({
      ...key,
      holdId: `hold:${newId('req')}`,
      amountMicros,
      limitMicros,
      periodStartMs: PERIOD_START,
      nowMs: T0,
      expiresAtMs: T0 + TTL_MS,
      ...overrides,
    });

    it('holds while spent + held + amount ≤ limit, exactly to the micro-dollar; refuses past it, naming both', async () => {
      const key = await newKey();
      await charge(key, 300n, T0 - 1000);
      expect(await store().reserve(request(key, 500n, 1000n))).toEqual({ ok: true });
      expect(await store().reserve(request(key, 201n, 1000n))).toEqual({
        ok: false,
        spentMicros: 300n,
        heldMicros: 500n,
      });
      expect(await store().reserve(request(key, 200n, 1000n))).toEqual({ ok: true });
      expect(await store().spend({ ...key, sinceMs: PERIOD_START, nowMs: T0 })).toEqual({
        spentMicros: 300n,
        heldMicros: 700n,
      });
    });

    it('counts only the period’s usage lines, only this key’s, of this account', async () => {
      const key = await newKey();
      const sibling = { accountId: key.accountId, keyId: newId('key') };
      await charge(key, 900n, PERIOD_START - 1); // the period before
      await charge(sibling, 900n, T0 - 1); // another key of the account
      await charge(key, 100n, PERIOD_START); // the period's first instant counts
      expect(await store().spend({ ...key, sinceMs: PERIOD_START, nowMs: T0 })).toEqual({
        spentMicros: 100n,
        heldMicros: 0n,
      });
      expect((await store().reserve(request(key, 900n, 1000n))).ok).toBe(true);
    });

    it('release frees the room at once and is idempotent; a landed charge counts in its hold’s place', async () => {
      const key = await newKey();
      const first = request(key, 600n, 1000n);
      expect((await store().reserve(first)).ok).toBe(true);
      expect((await store().reserve(request(key, 600n, 1000n))).ok).toBe(false);
      // The charge lands, then its hold goes: in between it counts twice, which only refuses more.
      await charge(key, 250n, T0);
      expect(await store().spend({ ...key, sinceMs: PERIOD_START, nowMs: T0 })).toEqual({
        spentMicros: 250n,
        heldMicros: 600n,
      });
      await store().release(first.holdId);
      await store().release(first.holdId);
      expect((await store().reserve(request(key, 750n, 1000n))).ok).toBe(true);
    });

    it('an expired hold no longer counts; extend keeps one counting, and never moves its expiry earlier', async () => {
      const key = await newKey();
      const kept = request(key, 400n, 1000n);
      const lapsing = request(key, 400n, 1000n);
      await store().reserve(kept);
      await store().reserve(lapsing);
      await store().extend(kept.holdId, T0 + 3 * TTL_MS);
      await store().extend(kept.holdId, T0 + 2 * TTL_MS);
      const later = T0 + 2 * TTL_MS + 1; // past lapsing's expiry and the earlier extension, before kept's
      expect(await store().spend({ ...key, sinceMs: PERIOD_START, nowMs: later })).toEqual({
        spentMicros: 0n,
        heldMicros: 400n,
      });
      const now = { nowMs: later, expiresAtMs: later + TTL_MS };
      expect((await store().reserve(request(key, 600n, 1000n, now))).ok).toBe(true);
      expect((await store().reserve(request(key, 1n, 1000n, now))).ok).toBe(false);
      await store().extend('hold:missing', T0 + TTL_MS); // nothing to extend: nothing happens
    });

    it('reserving a hold id again is answered as taken, and holds it once', async () => {
      const key = await newKey();
      const once = request(key, 700n, 1000n);
      expect(await store().reserve(once)).toEqual({ ok: true });
      expect(await store().reserve(once)).toEqual({ ok: true });
      expect((await store().spend({ ...key, sinceMs: PERIOD_START, nowMs: T0 })).heldMicros).toBe(700n);
    });

    it('keys are independent: one at its limit does not refuse another', async () => {
      const full = await newKey();
      const other = await newKey();
      expect((await store().reserve(request(full, 1000n, 1000n))).ok).toBe(true);
      expect((await store().reserve(request(full, 1n, 1000n))).ok).toBe(false);
      expect((await store().reserve(request(other, 1000n, 1000n))).ok).toBe(true);
    });

    it('100 concurrent reserves against one limit: exactly ⌊limit / amount⌋ win, never more', async () => {
      const key = await newKey();
      await charge(key, 250n, T0 - 1);
      const outcomes = await Promise.all(
        Array.from({ length: 100 }, () => store().reserve(request(key, 100n, 2_000n))),
      );
      expect(outcomes.filter((o) => o.ok)).toHaveLength(17); // (2000 − 250) / 100
      expect((await store().spend({ ...key, sinceMs: PERIOD_START, nowMs: T0 })).heldMicros).toBe(1_700n);
    });
  });
}

/**
 * The one behavioural contract of the rate-limiter port (src/adapters/rate-limiter/index.ts; SPEC 7.1.4, 8),
 * run against every implementation so the in-memory twin stays honest (DESIGN 1). Time is injected through
 * `nowMs`, so every expected number is exact. One limiter per suite (default 60 s window); every test uses
 * fresh key and account ids, so tests do not see each other's windows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRequest,
  WINDOW_MS,
} from '../../src/adapters/rate-limiter/index.js';
import { newId } from '../../src/lib/ids.js';

export interface LimiterUnderTest {
  limiter: RateLimiter;
  cleanup(): Promise<void>;
}

/** Realistic epoch milliseconds: above 2^32, so a 32-bit or %.14g-formatted value would show. */
const T0 = 1_750_000_000_000;

interface Caller {
  keyId: string;
  accountId: string;
  keyLimit: number;
  accountLimit: number;
}

function caller(keyLimit: number, accountLimit: number, accountId = newId('acc')): Caller {
  return { keyId: newId('key'), accountId, keyLimit, accountLimit };
}

const window = (limit: number, remaining: number, resetMs: number) => ({ limit, remaining, resetMs });

export function rateLimiterConformance(name: string, make: () => Promise<LimiterUnderTest>): void {
  describe(`RateLimiter conformance: ${name}`, () => {
    let subject: LimiterUnderTest | undefined;
    const check = (who: Caller, nowMs: number): Promise<RateLimitDecision> => {
      if (subject === undefined) throw new Error('limiter not made');
      const request: RateLimitRequest = { ...who, nowMs };
      return subject.limiter.check(request);
    };

    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.limiter.close();
      await subject?.cleanup();
    });

    it('admits exactly keyLimit requests, then rejects by key with the exact retry delay', async () => {
      const who = caller(5, 100);
      for (let i = 0; i < 5; i += 1) {
        const nowMs = T0 + i * 1000;
        expect(await check(who, nowMs)).toEqual({
          allowed: true,
          key: window(5, 4 - i, T0 + WINDOW_MS - nowMs),
          account: window(100, 99 - i, T0 + WINDOW_MS - nowMs),
        });
      }
      expect(await check(who, T0 + 5000)).toEqual({
        allowed: false,
        rejectedBy: 'key',
        retryAfterMs: 55_000,
        key: window(5, 0, 55_000),
        account: window(100, 95, 55_000),
      });
    });

    it('the first request of an empty window reports a full window until it leaves', async () => {
      expect(await check(caller(3, 10), T0)).toEqual({
        allowed: true,
        key: window(3, 2, WINDOW_MS),
        account: window(10, 9, WINDOW_MS),
      });
    });

    it('aggregates all keys of an account and rejects by account', async () => {
      const first = caller(10, 3);
      const second = caller(10, 3, first.accountId);
      expect((await check(first, T0)).allowed).toBe(true);
      expect((await check(second, T0 + 10)).allowed).toBe(true);
      expect(await check(first, T0 + 20)).toMatchObject({ allowed: true, account: window(3, 0, WINDOW_MS - 20) });
      expect(await check(second, T0 + 30)).toEqual({
        allowed: false,
        rejectedBy: 'account',
        retryAfterMs: WINDOW_MS - 30,
        key: window(10, 9, WINDOW_MS - 20),
        account: window(3, 0, WINDOW_MS - 30),
      });
    });

    it('names the key window when both windows are full', async () => {
      const who = caller(1, 1);
      expect((await check(who, T0)).allowed).toBe(true);
      expect(await check(who, T0 + 1)).toEqual({
        allowed: false,
        rejectedBy: 'key',
        retryAfterMs: WINDOW_MS - 1,
        key: window(1, 0, WINDOW_MS - 1),
        account: window(1, 0, WINDOW_MS - 1),
      });
    });

    it('records a request rejected by key in neither window', async () => {
      const first = caller(2, 3);
      const second = caller(2, 3, first.accountId);
      await check(first, T0);
      await check(first, T0 + 1);
      expect(await check(first, T0 + 2)).toMatchObject({
        allowed: false,
        rejectedBy: 'key',
        account: window(3, 1, WINDOW_MS - 2),
      });
      // Had the rejected one counted for the account, this third admitted request would be a fourth.
      expect(await check(second, T0 + 3)).toMatchObject({ allowed: true, account: window(3, 0, WINDOW_MS - 3) });
      // At T0 + window the entry from T0 has left; had the rejected one counted for the key, it would be full.
      expect(await check(first, T0 + WINDOW_MS)).toMatchObject({ allowed: true, key: window(2, 0, 1) });
    });

    it('records a request rejected by account in neither window', async () => {
      const who = caller(2, 1);
      await check(who, T0);
      expect(await check(who, T0 + 1)).toMatchObject({
        allowed: false,
        rejectedBy: 'account',
        key: window(2, 1, WINDOW_MS - 1),
      });
      // Only the T0 entry ever counted, and it has left: both windows hold just this request.
      expect(await check(who, T0 + WINDOW_MS)).toEqual({
        allowed: true,
        key: window(2, 1, WINDOW_MS),
        account: window(1, 0, WINDOW_MS),
      });
    });

    it('slides: admits again exactly when the oldest request leaves the key window', async () => {
      const who = caller(3, 100);
      for (const offsetMs of [0, 10_000, 20_000]) expect((await check(who, T0 + offsetMs)).allowed).toBe(true);
      expect(await check(who, T0 + WINDOW_MS - 1)).toMatchObject({
        allowed: false,
        rejectedBy: 'key',
        retryAfterMs: 1,
        key: window(3, 0, 1),
      });
      expect(await check(who, T0 + WINDOW_MS)).toEqual({
        allowed: true,
        key: window(3, 0, 10_000),
        account: window(100, 97, 10_000),
      });
      expect(await check(who, T0 + WINDOW_MS + 1)).toMatchObject({
        allowed: false,
        rejectedBy: 'key',
        retryAfterMs: 9_999,
      });
      expect(await check(who, T0 + WINDOW_MS + 9_999)).toMatchObject({
        allowed: false,
        rejectedBy: 'key',
        retryAfterMs: 1,
      });
      expect(await check(who, T0 + WINDOW_MS + 10_000)).toMatchObject({ allowed: true, key: window(3, 0, 10_000) });
    });

    it('slides: admits again exactly when the oldest request leaves the account window', async () => {
      const first = caller(10, 2);
      const second = caller(10, 2, first.accountId);
      await check(first, T0);
      await check(second, T0 + 5_000);
      expect(await check(second, T0 + WINDOW_MS - 1)).toMatchObject({
        allowed: false,
        rejectedBy: 'account',
        retryAfterMs: 1,
      });
      expect(await check(second, T0 + WINDOW_MS)).toEqual({
        allowed: true,
        key: window(10, 8, 5_000),
        account: window(2, 0, 5_000),
      });
      expect(await check(first, T0 + WINDOW_MS + 4_999)).toMatchObject({
        allowed: false,
        rejectedBy: 'account',
        retryAfterMs: 1,
      });
    });

    it('reports an emptied window as fresh once every request has left', async () => {
      const who = caller(4, 8);
      await check(who, T0);
      await check(who, T0 + 30_000);
      expect(await check(who, T0 + 30_000 + WINDOW_MS)).toEqual({
        allowed: true,
        key: window(4, 3, WINDOW_MS),
        account: window(8, 7, WINDOW_MS),
      });
    });

    it('keeps keys and accounts independent', async () => {
      const full = caller(1, 1);
      const otherKeySameAccount = caller(5, 5);
      const sameAccountOfOther = caller(5, 5, otherKeySameAccount.accountId);
      await check(full, T0);
      expect((await check(full, T0 + 1)).allowed).toBe(false);
      expect(await check(caller(1, 1), T0 + 1)).toEqual({
        allowed: true,
        key: window(1, 0, WINDOW_MS),
        account: window(1, 0, WINDOW_MS),
      });
      await check(otherKeySameAccount, T0);
      await check(otherKeySameAccount, T0);
      expect(await check(sameAccountOfOther, T0 + 2)).toMatchObject({
        allowed: true,
        key: window(5, 4, WINDOW_MS),
        account: window(5, 2, WINDOW_MS - 2),
      });
    });

    it('counts two requests in the same millisecond as two', async () => {
      const who = caller(2, 10);
      await check(who, T0);
      await check(who, T0);
      expect(await check(who, T0)).toMatchObject({ allowed: false, rejectedBy: 'key', retryAfterMs: WINDOW_MS });
    });

    it('counts an entry stamped by a caller whose clock runs ahead', async () => {
      // Processes share one window but each stamps with its own clock; an entry later than now still counts.
      const who = caller(5, 10);
      await check(who, T0 + 10);
      expect(await check(who, T0)).toEqual({
        allowed: true,
        key: window(5, 3, WINDOW_MS),
        account: window(10, 8, WINDOW_MS),
      });
      expect(await check(who, T0 + WINDOW_MS)).toEqual({
        allowed: true,
        key: window(5, 3, 10),
        account: window(10, 8, 10),
      });
    });

    it('rejects everything under a limit of 0, hinting a full window', async () => {
      expect(await check(caller(0, 10), T0)).toEqual({
        allowed: false,
        rejectedBy: 'key',
        retryAfterMs: WINDOW_MS,
        key: window(0, 0, 0),
        account: window(10, 10, 0),
      });
      expect(await check(caller(10, 0), T0)).toEqual({
        allowed: false,
        rejectedBy: 'account',
        retryAfterMs: WINDOW_MS,
        key: window(10, 10, 0),
        account: window(0, 0, 0),
      });
    });

    it('admits exactly 120 of 200 concurrent checks on one key (SPEC 8: 120 per minute)', async () => {
      const who = caller(120, 600);
      const decisions = await Promise.all(Array.from({ length: 200 }, () => check(who, T0)));
      const admitted = decisions.filter((decision) => decision.allowed);
      expect(admitted).toHaveLength(120);
      // Atomic check-and-record: every admitted request saw a different count.
      expect(admitted.map((decision) => decision.key.remaining).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 120 }, (_, i) => i),
      );
      expect(decisions.filter((decision) => !decision.allowed && decision.rejectedBy === 'key')).toHaveLength(80);
    });

    it('admits exactly the account limit of concurrent checks spread over four keys', async () => {
      const accountId = newId('acc');
      const keys = Array.from({ length: 4 }, () => caller(120, 120, accountId));
      const decisions = await Promise.all(
        Array.from({ length: 200 }, (_, i) => check(keys[i % 4] as Caller, T0 + (i % 7))),
      );
      expect(decisions.filter((decision) => decision.allowed)).toHaveLength(120);
      expect(decisions.filter((decision) => !decision.allowed && decision.rejectedBy === 'account')).toHaveLength(80);
    });

    it('refuses malformed input as a programmer error', async () => {
      await expect(check(caller(1.5, 10), T0)).rejects.toThrow(RangeError);
      await expect(check(caller(1, -1), T0)).rejects.toThrow(RangeError);
      await expect(check(caller(1, 1), T0 + 0.5)).rejects.toThrow(RangeError);
    });
  });
}

/**
 * The attempt windows of the rate-limiter port (`hit`, src/adapters/rate-limiter/index.ts; issue 26 item 5), run
 * against every implementation beside rateLimiterConformance. Time is injected, so every number is exact; every
 * test uses fresh bucket names.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AttemptDecision, AttemptWindow } from '../../src/adapters/rate-limiter/index.js';
import { newId } from '../../src/lib/ids.js';
import type { LimiterUnderTest } from './rate-limiter.conformance.js';

const T0 = 1_750_000_000_000;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * MINUTE_MS;

const bucket = (limit: number, windowMs = 15 * MINUTE_MS): AttemptWindow => ({
  bucket: newId('bucket'),
  limit,
  windowMs,
});

export function attemptWindowsConformance(name: string, make: () => Promise<LimiterUnderTest>): void {
  describe(`RateLimiter attempt windows: ${name}`, () => {
    let subject: LimiterUnderTest | undefined;
    const hit = (windows: AttemptWindow[], nowMs: number): Promise<AttemptDecision> => {
      if (subject === undefined) throw new Error('limiter not made');
      return subject.limiter.hit({ windows, nowMs });
    };

    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.limiter.close();
      await subject?.cleanup();
    });

    it('admits exactly the limit, counting down, then refuses with the exact delay and names the bucket', async () => {
      const window = bucket(3);
      for (let i = 0; i < 3; i += 1)
        expect(await hit([window], T0 + i * 1000)).toEqual({ allowed: true, remaining: 2 - i });
      expect(await hit([window], T0 + 5_000)).toEqual({
        allowed: false,
        rejectedBy: window.bucket,
        retryAfterMs: 15 * MINUTE_MS - 5_000,
      });
    });

    it('slides: admits again exactly when the oldest attempt leaves, never earlier', async () => {
      const window = bucket(2, MINUTE_MS);
      await hit([window], T0);
      await hit([window], T0 + 10_000);
      expect(await hit([window], T0 + MINUTE_MS - 1)).toMatchObject({ allowed: false, retryAfterMs: 1 });
      expect(await hit([window], T0 + MINUTE_MS)).toEqual({ allowed: true, remaining: 0 });
      expect(await hit([window], T0 + MINUTE_MS + 1)).toMatchObject({ allowed: false, retryAfterMs: 9_999 });
    });

    it('admits only when every window has room, and a refused attempt is recorded in none', async () => {
      const wide = bucket(5);
      const narrow = bucket(1);
      expect(await hit([wide, narrow], T0)).toEqual({ allowed: true, remaining: 0 });
      for (let i = 1; i <= 3; i += 1)
        expect(await hit([wide, narrow], T0 + i)).toMatchObject({ allowed: false, rejectedBy: narrow.bucket });
      // Had the refused ones counted in the wide window, it would hold 4 and have 1 left after this attempt, not 3.
      expect(await hit([wide], T0 + 10)).toEqual({ allowed: true, remaining: 3 });
    });

    it('with several full windows, hints the delay until all of them have room', async () => {
      const cooldown = bucket(1, MINUTE_MS);
      const daily = bucket(2, DAY_MS);
      await hit([cooldown, daily], T0);
      await hit([cooldown, daily], T0 + MINUTE_MS);
      expect(await hit([cooldown, daily], T0 + MINUTE_MS + 1)).toEqual({
        allowed: false,
        rejectedBy: daily.bucket,
        retryAfterMs: DAY_MS - MINUTE_MS - 1,
      });
      // Once the cooldown alone is over, the daily window still refuses.
      expect(await hit([cooldown, daily], T0 + 3 * MINUTE_MS)).toMatchObject({
        allowed: false,
        rejectedBy: daily.bucket,
      });
      expect(await hit([cooldown, daily], T0 + DAY_MS)).toEqual({ allowed: true, remaining: 0 });
    });

    it('refuses everything under a limit of 0, hinting a whole window', async () => {
      const closed = bucket(0, MINUTE_MS);
      expect(await hit([bucket(5), closed], T0)).toEqual({
        allowed: false,
        rejectedBy: closed.bucket,
        retryAfterMs: MINUTE_MS,
      });
    });

    it('counts two attempts in the same millisecond as two', async () => {
      const window = bucket(2);
      await hit([window], T0);
      await hit([window], T0);
      expect(await hit([window], T0)).toMatchObject({ allowed: false, retryAfterMs: 15 * MINUTE_MS });
    });

    it('keeps buckets apart from each other and from the request windows of the same name', async () => {
      const full = bucket(1);
      await hit([full], T0);
      expect((await hit([full], T0 + 1)).allowed).toBe(false);
      expect(await hit([bucket(1)], T0 + 1)).toEqual({ allowed: true, remaining: 0 });
      const request = { keyId: full.bucket, accountId: full.bucket, keyLimit: 5, accountLimit: 5, nowMs: T0 + 2 };
      expect(await subject?.limiter.check(request)).toMatchObject({ allowed: true, key: { remaining: 4 } });
    });

    it('admits exactly the limit of 100 concurrent attempts', async () => {
      const perAddress = bucket(50);
      const perEmail = bucket(10);
      const decisions = await Promise.all(
        Array.from({ length: 100 }, (_, i) => hit([perAddress, perEmail], T0 + (i % 5))),
      );
      const admitted = decisions.filter((decision) => decision.allowed);
      expect(admitted).toHaveLength(10);
      // Atomic check-and-record: every admitted attempt saw a different count.
      expect(admitted.map((decision) => (decision.allowed ? decision.remaining : -1)).sort()).toEqual([
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
      ]);
    });

    it('refuses malformed attempts as programmer errors', async () => {
      const window = bucket(1);
      await expect(hit([], T0)).rejects.toThrow(RangeError);
      await expect(hit([window, { ...window }], T0)).rejects.toThrow(RangeError);
      await expect(hit([{ ...window, bucket: '' }], T0)).rejects.toThrow(RangeError);
      await expect(hit([{ ...window, limit: 1.5 }], T0)).rejects.toThrow(RangeError);
      await expect(hit([{ ...window, windowMs: 0 }], T0)).rejects.toThrow(RangeError);
      await expect(hit([window], T0 + 0.5)).rejects.toThrow(RangeError);
    });
  });
}

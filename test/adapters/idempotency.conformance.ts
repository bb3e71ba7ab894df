/**
 * The behavioural contract of the idempotency-key port (src/adapters/idempotency/index.ts), run against every
 * implementation: atomic claims (one winner among concurrent requests), completion and release by the owner
 * only, takeover of an abandoned claim by exactly one successor, expiry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IdempotencyRecord, IdempotencyStore } from '../../src/adapters/idempotency/index.js';
import { newId } from '../../src/lib/ids.js';

export interface IdempotencyUnderTest {
  store: IdempotencyStore;
  cleanup: () => Promise<void>;
}

const T0 = 1_750_000_000_000;
const DAY = 86_400_000;

function record(over: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return {
    accountId: newId('acc'),
    key: newId('key'),
    fingerprint: 'f'.repeat(64),
    requestId: newId('req'),
    state: 'in_flight',
    statusCode: null,
    body: null,
    createdAtMs: T0,
    expiresAtMs: T0 + DAY,
    lockedUntilMs: T0 + 60_000,
    creates: null,
    ...over,
  };
}

export function idempotencyConformance(name: string, make: () => Promise<IdempotencyUnderTest>): void {
  describe(`IdempotencyStore conformance: ${name}`, () => {
    let subject: IdempotencyUnderTest;
    const store = () => subject.store;

    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    it('keeps what a claim creates, so whoever finds it after its owner died knows', async () => {
      const first = record({ creates: 'rental' });
      expect(await store().claim(first, T0)).toEqual({ claimed: true });
      const again = await store().claim({ ...first, requestId: newId('req') }, T0 + 1);
      expect(again).toMatchObject({ claimed: false, existing: { requestId: first.requestId, creates: 'rental' } });
    });

    it('lets exactly one of twenty concurrent claims of a key win; the others read the winner', async () => {
      const base = record();
      const claims = Array.from({ length: 20 }, () => ({ ...base, requestId: newId('req') }));
      const outcomes = await Promise.all(claims.map((c) => store().claim(c, T0)));
      const winners = outcomes.flatMap((o, i) => (o.claimed ? [claims[i]!.requestId] : []));
      expect(winners).toHaveLength(1);
      for (const o of outcomes) if (!o.claimed) expect(o.existing).toEqual({ ...base, requestId: winners[0] });
    });

    it('keeps keys apart per account and per key', async () => {
      const first = record();
      expect(await store().claim(first, T0)).toEqual({ claimed: true });
      expect(await store().claim({ ...first, accountId: newId('acc'), requestId: newId('req') }, T0)).toEqual({
        claimed: true,
      });
      expect(await store().claim({ ...first, key: newId('key'), requestId: newId('req') }, T0)).toEqual({
        claimed: true,
      });
    });

    it('records a completed response for replay, and only for the owner', async () => {
      const r = record();
      await store().claim(r, T0);
      await store().complete(r.accountId, r.key, newId('req'), {
        state: 'completed',
        statusCode: 200,
        body: '{"stolen":true}',
      });
      await store().complete(r.accountId, r.key, r.requestId, {
        state: 'completed',
        statusCode: 201,
        body: '{"id":"x"}',
      });
      const again = await store().claim({ ...r, requestId: newId('req') }, T0 + 1);
      expect(again).toEqual({
        claimed: false,
        existing: { ...r, state: 'completed', statusCode: 201, body: '{"id":"x"}' },
      });
      await store().complete(r.accountId, r.key, r.requestId, { state: 'completed', statusCode: 200, body: null });
      expect(await store().claim({ ...r, requestId: newId('req') }, T0 + 2)).toMatchObject({
        existing: { statusCode: 200, body: null },
      });
    });

    it('marks a key used by a stream', async () => {
      const r = record();
      await store().claim(r, T0);
      await store().complete(r.accountId, r.key, r.requestId, { state: 'streamed' });
      expect(await store().claim({ ...r, requestId: newId('req') }, T0)).toMatchObject({
        existing: { state: 'streamed', requestId: r.requestId },
      });
    });

    it('frees a key released by its owner, and ignores a release by anyone else', async () => {
      const r = record();
      await store().claim(r, T0);
      await store().release(r.accountId, r.key, newId('req'));
      expect((await store().claim({ ...r, requestId: newId('req') }, T0)).claimed).toBe(false);
      await store().release(r.accountId, r.key, r.requestId);
      expect(await store().claim({ ...r, requestId: newId('req') }, T0)).toEqual({ claimed: true });
    });

    it('hands an abandoned in-flight claim to exactly one successor, never a completed one', async () => {
      const r = record();
      await store().claim(r, T0);
      const successors = Array.from({ length: 5 }, () => ({
        ...r,
        requestId: newId('req'),
        lockedUntilMs: T0 + 120_000,
      }));
      const taken = await Promise.all(successors.map((s) => store().takeOver(s, r.requestId)));
      expect(taken.filter(Boolean)).toHaveLength(1);
      const winner = successors[taken.indexOf(true)]!;
      expect(await store().claim({ ...r, requestId: newId('req') }, T0)).toEqual({ claimed: false, existing: winner });
      await store().complete(r.accountId, r.key, winner.requestId, { state: 'completed', statusCode: 200, body: '{}' });
      expect(await store().takeOver({ ...r, requestId: newId('req') }, winner.requestId)).toBe(false);
    });

    it('forgets keys at their expiry: a claim then starts afresh, and the sweeper removes the rest', async () => {
      const old = record({ expiresAtMs: T0 + 10 });
      const other = record({ expiresAtMs: T0 + 10 });
      await store().claim(old, T0);
      await store().claim(other, T0);
      const fresh = {
        ...old,
        requestId: newId('req'),
        fingerprint: 'e'.repeat(64),
        createdAtMs: T0 + 10,
        expiresAtMs: T0 + DAY,
      };
      expect(await store().claim(fresh, T0 + 9)).toMatchObject({ claimed: false });
      expect(await store().claim(fresh, T0 + 10)).toEqual({ claimed: true });
      expect(await store().claim({ ...fresh, requestId: newId('req') }, T0 + 11)).toEqual({
        claimed: false,
        existing: fresh,
      });
      expect(await store().expire(T0 + 10)).toBeGreaterThanOrEqual(1);
      expect(await store().claim({ ...other, requestId: newId('req'), expiresAtMs: T0 + DAY }, T0 + 11)).toEqual({
        claimed: true,
      });
    });
  });
}

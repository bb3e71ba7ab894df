/**
 * The one behavioural contract of the job-store port (src/adapters/job-store/index.ts; SPEC 3.1, 8), run
 * against every implementation so the in-memory twin stays honest (DESIGN 1). Time is injected through
 * `nowMs` and the records' own times, so every expectation is exact. One store per suite; every test uses
 * fresh job ids, so tests do not see each other's records.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobPatch, JobRecord, JobStatus, JobStore } from '../../src/adapters/job-store/index.js';
import { newId } from '../../src/lib/ids.js';

export interface JobStoreUnderTest {
  store: JobStore;
  cleanup(): Promise<void>;
}

/** Realistic epoch milliseconds: above 2^32, so a 32-bit or %.14g-formatted value would show. */
const T0 = 1_750_000_000_123;
/** SPEC 8: images are kept 15 minutes. */
const IMAGE_RETENTION_MS = 15 * 60_000;

function job(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: newId('job'),
    accountId: newId('acc'),
    kind: 'image',
    status: 'pending',
    createdAtMs: T0,
    updatedAtMs: T0,
    expiresAtMs: T0 + IMAGE_RETENTION_MS,
    data: { model: 'img-1', prompt: 'a lighthouse' },
    ...overrides,
  };
}

/** Values JSON keeps exactly, including shapes a careless JSON store would damage ([] → {}, 14 digits, surrogates). */
const TRICKY_DATA = {
  emptyArray: [],
  emptyObject: {},
  nestedEmpty: { list: [[], {}], deep: { deeper: { items: [] } } },
  maxSafe: Number.MAX_SAFE_INTEGER,
  negative: -123_456_789_012_345,
  float: 0.1 + 0.2,
  tiny: 1e-7,
  huge: 1.7976931348623157e308,
  flags: [true, false, null],
  text: 'quote " backslash \\ slash / tab \t newline \n',
  unicode: 'привет, 世界 🚀 \u2028 é',
  loneSurrogate: '\ud800',
  '': 'empty key',
  '1': 'numeric key',
  'dotted.key': { 'a.b': 1 },
  mixed: [1, 'two', { three: 3 }, [4], null],
};

export function jobStoreConformance(name: string, make: () => Promise<JobStoreUnderTest>): void {
  describe(`JobStore conformance: ${name}`, () => {
    let subject: JobStoreUnderTest | undefined;
    const store = (): JobStore => {
      if (subject === undefined) throw new Error('store not made');
      return subject.store;
    };
    const created = async (overrides: Partial<JobRecord> = {}): Promise<JobRecord> => {
      const record = job(overrides);
      expect(await store().create(record)).toBe(true);
      return record;
    };
    const transition = (id: string, from: JobStatus[], patch: JobPatch, nowMs: number) =>
      store().transition(id, from, patch, nowMs);

    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.store.close();
      await subject?.cleanup();
    });

    describe('create and get', () => {
      it('stores a record and returns it unchanged', async () => {
        const record = await created();
        expect(await store().get(record.id, T0)).toEqual(record);
      });

      it('refuses an id that exists already and keeps the first record', async () => {
        const first = await created();
        expect(await store().create({ ...job(), id: first.id, status: 'completed', data: { other: true } })).toBe(
          false,
        );
        expect(await store().get(first.id, T0 + 1)).toEqual(first);
      });

      it('answers null for an unknown id', async () => {
        expect(await store().get(newId('job'), T0)).toBeNull();
      });

      it('stores copies: changing the input or an answer changes nothing in the store', async () => {
        const record = await created({ data: { nested: { list: [1] } } });
        const expected = structuredClone(record);
        (record.data.nested as { list: number[] }).list.push(2);
        record.status = 'failed';
        const answer = await store().get(record.id, T0);
        expect(answer).toEqual(expected);
        (answer!.data.nested as { list: number[] }).list.push(3);
        expect(await store().get(record.id, T0)).toEqual(expected);
      });
    });

    describe('expiry (SPEC 3.1: gone once the retention has passed)', () => {
      it('serves the record until the millisecond before expiresAtMs, then null', async () => {
        const record = await created();
        expect(await store().get(record.id, record.expiresAtMs - 1)).toEqual(record);
        expect(await store().get(record.id, record.expiresAtMs)).toBeNull();
        expect(await store().get(record.id, record.expiresAtMs + 60_000)).toBeNull();
      });

      it('replays a terminal record on every poll until it expires', async () => {
        const record = await created({ status: 'completed', data: { url: 'https://cdn.example/a.png' } });
        for (const offsetMs of [0, 1_000, 60_000, IMAGE_RETENTION_MS - 1]) {
          expect(await store().get(record.id, T0 + offsetMs)).toEqual(record);
        }
        expect(await store().get(record.id, T0 + IMAGE_RETENTION_MS)).toBeNull();
      });

      it('refuses to transition an expired record', async () => {
        const record = await created();
        expect(await transition(record.id, ['pending'], { status: 'processing' }, record.expiresAtMs)).toBeNull();
      });

      it('keeps the expiry when a record transitions: retention counts from kickoff', async () => {
        const record = await created();
        const next = await transition(record.id, ['pending'], { status: 'completed' }, T0 + IMAGE_RETENTION_MS - 10);
        expect(next?.expiresAtMs).toBe(record.expiresAtMs);
        expect(await store().get(record.id, record.expiresAtMs)).toBeNull();
      });
    });

    describe('transition', () => {
      it('applies the patch when the status is in `from`, stamping updatedAtMs', async () => {
        const record = await created();
        const expected: JobRecord = {
          ...record,
          status: 'processing',
          updatedAtMs: T0 + 500,
          data: { ...record.data, route: 'primary' },
        };
        expect(
          await transition(record.id, ['pending'], { status: 'processing', data: { route: 'primary' } }, T0 + 500),
        ).toEqual(expected);
        expect(await store().get(record.id, T0 + 501)).toEqual(expected);
      });

      it('changes nothing when the status is not in `from`', async () => {
        const record = await created({ status: 'processing' });
        expect(await transition(record.id, ['pending'], { status: 'failed', data: { error: 'x' } }, T0 + 1)).toBeNull();
        expect(await transition(record.id, [], { status: 'failed' }, T0 + 1)).toBeNull();
        expect(await store().get(record.id, T0 + 2)).toEqual(record);
      });

      it('answers null for an unknown id', async () => {
        expect(await transition(newId('job'), ['pending'], { status: 'processing' }, T0)).toBeNull();
      });

      it('accepts any of several `from` statuses', async () => {
        const record = await created({ status: 'processing' });
        expect(await transition(record.id, ['pending', 'processing'], { status: 'failed' }, T0 + 1)).toMatchObject({
          status: 'failed',
        });
      });

      it('lets exactly one of 50 concurrent pending → completed transitions win (charge once, SPEC 3.1)', async () => {
        const record = await created();
        const answers = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            transition(
              record.id,
              ['pending', 'processing'],
              { status: 'completed', data: { winner: i } },
              T0 + 1_000 + i,
            ),
          ),
        );
        const winners = answers.flatMap((answer, i) => (answer === null ? [] : [{ answer, i }]));
        expect(winners).toHaveLength(1);
        const [{ answer, i }] = winners as [{ answer: JobRecord; i: number }];
        expect(answer).toMatchObject({ status: 'completed', updatedAtMs: T0 + 1_000 + i, data: { winner: i } });
        expect(await store().get(record.id, T0 + 2_000)).toEqual(answer);
      });

      it('applies a patch that `expect`s data only while the data holds it; one of 20 concurrent claims wins', async () => {
        const record = await created({ status: 'completed', data: { ready: true } });
        expect(
          await transition(record.id, ['completed'], { data: { claim: 'x' }, expect: { ready: false } }, T0 + 1),
        ).toBeNull();
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            transition(
              record.id,
              ['completed'],
              { data: { claim: `c${i}` }, expect: { claim: null, ready: true } },
              T0 + 2 + i,
            ),
          ),
        );
        const winners = answers.filter((answer) => answer !== null);
        expect(winners).toHaveLength(1);
        expect(await store().get(record.id, T0 + 100)).toEqual(winners[0]);
        // Handed on only by whoever names the current claim.
        const current = String(winners[0]!.data.claim);
        expect(
          await transition(record.id, ['completed'], { data: { claim: 'y' }, expect: { claim: 'other' } }, T0 + 101),
        ).toBeNull();
        expect(
          await transition(record.id, ['completed'], { data: { claim: 'y' }, expect: { claim: current } }, T0 + 102),
        ).toMatchObject({ data: { claim: 'y', ready: true } });
      });

      it('keeps terminal states final unless `from` names them', async () => {
        for (const terminal of ['completed', 'failed'] as const) {
          const record = await created({ status: terminal });
          const others: JobStatus[] = ['pending', 'processing', terminal === 'completed' ? 'failed' : 'completed'];
          expect(
            await transition(record.id, others, { status: 'processing', data: { late: true } }, T0 + 1),
          ).toBeNull();
          expect(await store().get(record.id, T0 + 2)).toEqual(record);
          // Named explicitly, a terminal record can still be annotated (e.g. the hosted copy has landed, SPEC 2.8).
          expect(await transition(record.id, [terminal], { data: { stored_ready: true } }, T0 + 3)).toEqual({
            ...record,
            updatedAtMs: T0 + 3,
            data: { ...record.data, stored_ready: true },
          });
        }
      });

      it('walks pending → processing → completed, accumulating data', async () => {
        const record = await created({ kind: 'video', data: {} });
        await transition(record.id, ['pending'], { status: 'processing', data: { progress: 0 } }, T0 + 1);
        await transition(record.id, ['processing'], { data: { progress: 40 } }, T0 + 2);
        const done = await transition(
          record.id,
          ['processing'],
          { status: 'completed', data: { progress: 100, video: { url: 'https://cdn.example/v.mp4' } } },
          T0 + 3,
        );
        expect(done).toEqual({
          ...record,
          status: 'completed',
          updatedAtMs: T0 + 3,
          data: { progress: 100, video: { url: 'https://cdn.example/v.mp4' } },
        });
      });
    });

    describe('data merge', () => {
      it('merges shallowly: top-level keys replace, others stay', async () => {
        const record = await created({ data: { a: 1, nested: { x: 1, y: 2 }, list: [1, 2] } });
        const next = await transition(
          record.id,
          ['pending'],
          { data: { nested: { x: 3 }, list: [], b: 'new' } },
          T0 + 1,
        );
        expect(next?.data).toEqual({ a: 1, nested: { x: 3 }, list: [], b: 'new' });
        expect(next?.status).toBe('pending');
      });

      it('sets null, and ignores undefined as JSON does', async () => {
        const record = await created({ data: { a: 1, b: 2 } });
        const next = await transition(record.id, ['pending'], { data: { a: null, b: undefined } }, T0 + 1);
        expect(next?.data).toEqual({ a: null, b: 2 });
        expect(await store().get(record.id, T0 + 2)).toEqual(next);
      });

      it('keeps the data when the patch has none', async () => {
        const record = await created();
        expect((await transition(record.id, ['pending'], { status: 'processing' }, T0 + 1))?.data).toEqual(record.data);
      });
    });

    describe('kinds, accounts and JSON', () => {
      it('keeps kind and account of every record, through transitions too', async () => {
        const accountId = newId('acc');
        const records = await Promise.all(
          ['image', 'video', 'music', 'audio', 'restoration', 'chat'].map((kind, i) =>
            created({ kind, accountId: i % 2 === 0 ? accountId : newId('acc'), expiresAtMs: T0 + (i + 1) * 60_000 }),
          ),
        );
        for (const record of records) {
          expect(await store().get(record.id, T0)).toEqual(record);
          expect(await transition(record.id, ['pending'], { status: 'processing' }, T0 + 1)).toMatchObject({
            kind: record.kind,
            accountId: record.accountId,
            expiresAtMs: record.expiresAtMs,
          });
        }
      });

      it('round-trips JSON exactly through create, get and transition', async () => {
        const record = await created({ data: TRICKY_DATA });
        expect(await store().get(record.id, T0)).toEqual(record);
        const next = await transition(
          record.id,
          ['pending'],
          { status: 'completed', data: { again: TRICKY_DATA } },
          T0 + 1,
        );
        expect(next).toEqual({
          ...record,
          status: 'completed',
          updatedAtMs: T0 + 1,
          data: { ...TRICKY_DATA, again: TRICKY_DATA },
        });
        expect(await store().get(record.id, T0 + 2)).toEqual(next);
      });

      it('stores what JSON stores: undefined dropped, Dates as ISO strings', async () => {
        const record = await created({ data: { gone: undefined, at: new Date(T0), kept: 1 } });
        expect((await store().get(record.id, T0))?.data).toEqual({ at: new Date(T0).toISOString(), kept: 1 });
        expect(record.data).toHaveProperty('gone');
      });

      it('keeps the largest safe epoch times exactly', async () => {
        const record = await created({
          createdAtMs: 9_000_000_000_000_000,
          updatedAtMs: 9_000_000_000_000_001,
          expiresAtMs: Number.MAX_SAFE_INTEGER,
        });
        expect(await store().get(record.id, 9_000_000_000_000_002)).toEqual(record);
        expect(await transition(record.id, ['pending'], { status: 'processing' }, 9_000_000_000_000_003)).toMatchObject(
          { updatedAtMs: 9_000_000_000_000_003 },
        );
      });
    });

    describe('leases (a worker owns a job until its lease runs out; then another resumes it)', () => {
      const lease = (owner: string, untilMs: number) => ({ owner, untilMs });
      /** Claims until the jobs of this test are found: other tests' records are claimable too. */
      const claimed = async (ids: string[], owner: string, nowMs: number): Promise<string[]> => {
        const got = await store().claim(lease(owner, nowMs + 30_000), nowMs, 1_000);
        return got.map((j) => j.id).filter((id) => ids.includes(id));
      };

      it('leaves a job leased at creation alone until its lease runs out, then lets one worker claim it', async () => {
        const record = job({ accountId: newId('acc') });
        expect(await store().create(record, lease('w1', T0 + 10_000))).toBe(true);
        expect(await claimed([record.id], 'w2', T0 + 9_999)).toEqual([]);
        expect(await claimed([record.id], 'w2', T0 + 10_000)).toEqual([record.id]);
        expect(await claimed([record.id], 'w3', T0 + 10_001)).toEqual([]);
        // The first owner lost it: its renewals fail from now on.
        expect(await store().renew(record.id, lease('w1', T0 + 50_000), T0 + 10_002)).toBe(false);
        expect(await store().renew(record.id, lease('w2', T0 + 90_000), T0 + 10_002)).toBe(true);
        expect(await claimed([record.id], 'w3', T0 + 80_000)).toEqual([]);
      });

      it('answers claimed jobs whole, oldest first, and never terminal or expired ones', async () => {
        const early = await created({ createdAtMs: T0 - 2, updatedAtMs: T0 - 2, data: TRICKY_DATA });
        const late = await created({ createdAtMs: T0 - 1, updatedAtMs: T0 - 1, status: 'processing' });
        const done = await created({ status: 'completed' });
        const failed = await created({ status: 'failed' });
        const gone = await created({ expiresAtMs: T0 + 5 });
        const got = (await store().claim(lease('w1', T0 + 60_000), T0 + 5, 1_000)).filter((j) =>
          [early, late, done, failed, gone].some((r) => r.id === j.id),
        );
        expect(got).toEqual([early, late]);
      });

      it('claims at most `limit` jobs', async () => {
        await created();
        await created();
        expect(await store().claim(lease('w1', T0 + 60_000), T0 + 1, 1)).toHaveLength(1);
      });

      it('lets exactly one of 20 concurrent claimers have a job', async () => {
        const record = await created({ createdAtMs: T0 - 50_000, updatedAtMs: T0 - 50_000 });
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => claimed([record.id], `w${i}`, T0 + 100)),
        );
        expect(answers.flat()).toEqual([record.id]);
      });

      it('releases a lease only for its owner, and a released job can be claimed at once', async () => {
        const record = job();
        await store().create(record, lease('w1', T0 + 60_000));
        await store().release(record.id, 'w2');
        expect(await claimed([record.id], 'w3', T0 + 1)).toEqual([]);
        await store().release(record.id, 'w1');
        expect(await claimed([record.id], 'w3', T0 + 2)).toEqual([record.id]);
      });

      it('claims one job by id only while nobody holds it, it is live and not terminal', async () => {
        const record = job();
        await store().create(record, lease('w1', T0 + 1_000));
        expect(await store().claimOne(record.id, lease('w2', T0 + 60_000), T0 + 999)).toBeNull();
        expect(await store().claimOne(record.id, lease('w2', T0 + 60_000), T0 + 1_000)).toEqual(record);
        expect(await store().claimOne(record.id, lease('w3', T0 + 90_000), T0 + 1_001)).toBeNull();
        await store().release(record.id, 'w2');
        expect(await store().claimOne(record.id, lease('w3', T0 + 90_000), T0 + 1_002)).toEqual(record);
        const done = await created({ status: 'completed' });
        expect(await store().claimOne(done.id, lease('w1', T0 + 60_000), T0 + 1)).toBeNull();
        expect(await store().claimOne(newId('job'), lease('w1', T0 + 60_000), T0 + 1)).toBeNull();
        const gone = await created({ expiresAtMs: T0 + 5 });
        expect(await store().claimOne(gone.id, lease('w1', T0 + 60_000), T0 + 5)).toBeNull();
      });

      it('applies a worker’s transition only while that worker holds the lease', async () => {
        const record = job();
        await store().create(record, lease('w1', T0 + 1_000));
        expect(await store().transition(record.id, ['pending'], { status: 'processing' }, T0 + 1, 'w1')).toMatchObject({
          status: 'processing',
        });
        expect(await store().transition(record.id, ['processing'], { data: { by: 'w2' } }, T0 + 2, 'w2')).toBeNull();
        await store().claimOne(record.id, lease('w2', T0 + 90_000), T0 + 1_000);
        expect(
          await store().transition(
            record.id,
            ['processing'],
            { status: 'completed', data: { by: 'w1' } },
            T0 + 1_001,
            'w1',
          ),
        ).toBeNull();
        expect(
          await store().transition(
            record.id,
            ['processing'],
            { status: 'completed', data: { by: 'w2' } },
            T0 + 1_002,
            'w2',
          ),
        ).toMatchObject({ status: 'completed', data: { by: 'w2' } });
      });

      it('renews nothing once the job is terminal', async () => {
        const record = job();
        await store().create(record, lease('w1', T0 + 60_000));
        await transition(record.id, ['pending'], { status: 'completed' }, T0 + 1);
        expect(await store().renew(record.id, lease('w1', T0 + 90_000), T0 + 2)).toBe(false);
      });

      it('keeps a renewed lease even after the first one ran out, while nobody claimed the job', async () => {
        const record = job();
        await store().create(record, lease('w1', T0 + 10));
        expect(await store().renew(record.id, lease('w1', T0 + 60_000), T0 + 20)).toBe(true);
        expect(await claimed([record.id], 'w2', T0 + 30)).toEqual([]);
      });
    });

    describe('expire', () => {
      it('deletes the records past their expiry and keeps the rest', async () => {
        const old = await created({ createdAtMs: 1_000, updatedAtMs: 1_000, expiresAtMs: 2_000 });
        const live = await created({ createdAtMs: 1_000, updatedAtMs: 1_000, expiresAtMs: 3_000 });
        expect(await store().expire(2_000)).toBeGreaterThanOrEqual(1);
        expect(await store().get(old.id, 1_500)).toBeNull();
        expect(await store().get(live.id, 1_500)).toEqual(live);
      });
    });

    it('refuses malformed input as a programmer error', async () => {
      await expect(store().create(job({ expiresAtMs: T0 }))).rejects.toThrow(RangeError);
      await expect(store().create(job({ status: 'done' as JobStatus }))).rejects.toThrow(RangeError);
      await expect(store().create(job({ id: '' }))).rejects.toThrow(TypeError);
      await expect(store().get(newId('job'), T0 + 0.5)).rejects.toThrow(RangeError);
      await expect(transition(newId('job'), ['done' as JobStatus], {}, T0)).rejects.toThrow(RangeError);
      await expect(transition(newId('job'), ['pending'], { status: 'done' as JobStatus }, T0)).rejects.toThrow(
        RangeError,
      );
      await expect(store().create(job(), { owner: '', untilMs: T0 })).rejects.toThrow(TypeError);
      await expect(store().claim({ owner: 'w', untilMs: 1.5 }, T0, 1)).rejects.toThrow(RangeError);
    });
  });
}

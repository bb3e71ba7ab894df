/**
 * The one behavioural contract of the usage-log port (src/adapters/usage-log/index.ts), run against every
 * implementation. One store per suite; every test uses fresh account ids, so tests do not depend on each other.
 * Records are seeded with each backend's own rows (the ledger writes them in production; the ledger suite proves
 * that write path: a usage line with every charge, its roll-up in the same transaction).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageLogStore, UsageRecord } from '../../src/adapters/usage-log/index.js';
import { newId } from '../../src/lib/ids.js';

export interface UsageLogUnderTest {
  store: UsageLogStore;
  /** Stores records and their daily roll-ups as the backend keeps them. */
  seed: (records: readonly UsageRecord[]) => Promise<void>;
  cleanup: () => Promise<void>;
}

/** 2025-06-15T00:00:00Z: realistic epoch ms above 2^31, and a UTC midnight to straddle. */
const MIDNIGHT = Date.UTC(2025, 5, 15);
const T0 = MIDNIGHT - 3_600_000;

let seq = 0;

function rec(accountId: string, over: Partial<UsageRecord> = {}): UsageRecord {
  seq += 1;
  return {
    id: newId('log'),
    accountId,
    keyId: 'key_fixture',
    requestId: newId('req'),
    model: 'acme/chat-1',
    kind: 'chat',
    endpoint: '/v1/compat/chat/completions',
    promptTokens: 10,
    completionTokens: 5,
    cachedTokens: 2,
    reasoningTokens: 1,
    totalTokens: 15,
    costMicros: 1_000n,
    transferId: `hold:req_${seq}`,
    billedInRub: false,
    costRubMicro: null,
    fxRateRubMicro: null,
    createdAtMs: T0 + seq,
    durationMs: 120,
    metadata: {},
    ...over,
  };
}

const rub = (costMicros: bigint, costRubMicro: bigint): Partial<UsageRecord> => ({
  billedInRub: true,
  costMicros,
  costRubMicro,
  fxRateRubMicro: (costRubMicro * 1_000_000n) / costMicros,
});

export function usageLogConformance(name: string, make: () => Promise<UsageLogUnderTest>): void {
  describe(`UsageLogStore conformance: ${name}`, () => {
    let subject: UsageLogUnderTest;
    const store = () => subject.store;
    const seed = (records: readonly UsageRecord[]) => subject.seed(records);
    const everything = { limit: 10_000, offset: 0 };

    beforeAll(async () => {
      subject = await make();
    });
    afterAll(async () => {
      await subject?.cleanup();
    });

    describe('get', () => {
      it('round-trips every field with plain numbers and exact bigints', async () => {
        const acc = newId('acc');
        const usd = rec(acc, {
          transferId: null,
          metadata: { stream: true, upstream: { provider: 'sandbox', tries: [1, 2] } },
        });
        const rubled = rec(acc, {
          ...rub(2_500_000n, 237_500_000n),
          kind: 'image',
          endpoint: '/v1/llm/images/generations',
        });
        await seed([usd, rubled]);
        expect(await store().get(acc, usd.id)).toEqual(usd);
        const read = await store().get(acc, rubled.id);
        expect(read).toEqual(rubled);
        expect(typeof read!.createdAtMs).toBe('number');
        expect(typeof read!.promptTokens).toBe('number');
        expect(typeof read!.costMicros).toBe('bigint');
        expect(typeof read!.fxRateRubMicro).toBe('bigint');
      });

      it('does not show one account’s record to another, and answers null for unknown ids', async () => {
        const acc = newId('acc');
        const r = rec(acc);
        await seed([r]);
        expect(await store().get(newId('acc'), r.id)).toBeNull();
        expect(await store().get(acc, newId('log'))).toBeNull();
      });

      it('returns copies and keeps its own: mutating inputs or outputs changes nothing stored', async () => {
        const acc = newId('acc');
        const r = rec(acc, { metadata: { tag: 'a' } });
        const original = structuredClone(r);
        await seed([r]);
        r.metadata.tag = 'changed';
        r.costMicros = 9n;
        const read = await store().get(acc, r.id);
        read!.metadata.tag = 'changed too';
        expect(await store().get(acc, r.id)).toEqual(original);
      });
    });

    describe('list', () => {
      it('lists newest first, ties broken by id descending, only the account’s own', async () => {
        const acc = newId('acc');
        const older = rec(acc, { createdAtMs: T0 + 10 });
        // Code-unit order puts 'B' before 'a'; a locale collation (en_US) would not: both twins must agree.
        const upper = rec(acc, { id: `log_tieB_${acc}`, createdAtMs: T0 + 20 });
        const lower = rec(acc, { id: `log_tiea_${acc}`, createdAtMs: T0 + 20 });
        const newest = rec(acc, { createdAtMs: T0 + 30 });
        await seed([upper, older, newest, lower]);
        await seed([rec(newId('acc'), { createdAtMs: T0 + 25 })]);
        const ids = (await store().list(acc, {}, everything)).map((r) => r.id);
        expect(ids).toEqual([newest, lower, upper, older].map((r) => r.id));
        expect(await store().list(newId('acc'), {}, everything)).toEqual([]);
      });

      it('filters by model and by [fromMs, toMs)', async () => {
        const acc = newId('acc');
        const a = rec(acc, { createdAtMs: T0 + 100, model: 'm/one' });
        const b = rec(acc, { createdAtMs: T0 + 200, model: 'm/two' });
        const c = rec(acc, { createdAtMs: T0 + 300, model: 'm/one' });
        await seed([a, b, c]);
        const ids = async (filter: Parameters<UsageLogStore['list']>[1]) =>
          (await store().list(acc, filter, everything)).map((r) => r.id);
        expect(await ids({ model: 'm/one' })).toEqual([c.id, a.id]);
        expect(await ids({ fromMs: T0 + 200 })).toEqual([c.id, b.id]);
        expect(await ids({ toMs: T0 + 300 })).toEqual([b.id, a.id]);
        expect(await ids({ fromMs: T0 + 100, toMs: T0 + 200 })).toEqual([a.id]);
        expect(await ids({ model: 'm/one', fromMs: T0 + 101 })).toEqual([c.id]);
        expect(await ids({ model: 'm/none' })).toEqual([]);
      });

      it('pages with limit and offset without gaps or overlaps', async () => {
        const acc = newId('acc');
        const records = Array.from({ length: 7 }, (_, i) => rec(acc, { createdAtMs: T0 + 1_000 + i }));
        await seed(records);
        const expected = [...records].reverse().map((r) => r.id);
        const pages = [];
        for (let offset = 0; offset < 9; offset += 3)
          pages.push(...(await store().list(acc, {}, { limit: 3, offset })));
        expect(pages.map((r) => r.id)).toEqual(expected);
        expect(await store().list(acc, {}, { limit: 3, offset: 7 })).toEqual([]);
        expect(await store().list(acc, {}, { limit: 0, offset: 0 })).toEqual([]);
      });
    });

    describe('totals', () => {
      it('sums exactly in bigint beyond 2^53 and splits ruble-billed from unbilled', async () => {
        const acc = newId('acc');
        const big = 4_503_599_627_370_497n; // 2^52 + 1: two of them exceed 2^53, where a double would round
        await seed([
          rec(acc, { costMicros: big, promptTokens: 100, completionTokens: 50, totalTokens: 150 }),
          rec(acc, { costMicros: big, promptTokens: 1, completionTokens: 2, totalTokens: 3 }),
          rec(acc, { ...rub(1_000_001n, 95_000_123n), promptTokens: 7, completionTokens: 0, totalTokens: 7 }),
          rec(acc, { ...rub(1_000_000n, big), model: 'other/model' }),
        ]);
        const expected = {
          requests: 4,
          promptTokens: 118,
          completionTokens: 57,
          totalTokens: 175,
          costMicros: 2n * big + 2_000_001n,
          billedRubMicro: big + 95_000_123n,
          unbilledCostMicros: 2n * big,
        };
        expect(await store().totals(acc, {})).toEqual(expected);
        expect(await store().totals(acc, { fromMs: 1 })).toEqual(expected); // not a whole day: summed from records
      });

      it('applies the same filters as list', async () => {
        const acc = newId('acc');
        await seed([
          rec(acc, { createdAtMs: T0 + 100, model: 'm/one', costMicros: 1n }),
          rec(acc, { createdAtMs: T0 + 200, model: 'm/two', costMicros: 10n }),
          rec(acc, { createdAtMs: T0 + 300, model: 'm/one', costMicros: 100n }),
        ]);
        expect((await store().totals(acc, { model: 'm/one' })).costMicros).toBe(101n);
        expect((await store().totals(acc, { fromMs: T0 + 200, toMs: T0 + 300 })).costMicros).toBe(10n);
        expect((await store().totals(acc, { model: 'm/two', toMs: T0 + 200 })).requests).toBe(0);
      });

      it('filters by key, in list and totals, and totals per key ordered by key id (issue 26)', async () => {
        const acc = newId('acc');
        const a = rec(acc, { keyId: 'key_b', createdAtMs: T0 + 100, costMicros: 1n });
        const b = rec(acc, { keyId: 'key_a', createdAtMs: T0 + 200, costMicros: 10n });
        const c = rec(acc, { keyId: 'key_b', createdAtMs: T0 + 300, costMicros: 100n, model: 'm/two' });
        await seed([a, b, c, rec(newId('acc'), { keyId: 'key_b', costMicros: 1_000n })]);
        expect((await store().list(acc, { keyId: 'key_b' }, { limit: 10, offset: 0 })).map((r) => r.id)).toEqual([
          c.id,
          a.id,
        ]);
        expect((await store().totals(acc, { keyId: 'key_b' })).costMicros).toBe(101n); // whole days, yet by key
        expect((await store().totals(acc, { keyId: 'key_b', model: 'm/two' })).requests).toBe(1);
        expect((await store().totals(acc, { keyId: 'key_none' })).requests).toBe(0);
        const perKey = await store().totalsByKey(acc, {});
        expect(perKey.map((t) => [t.keyId, t.requests, t.costMicros])).toEqual([
          ['key_a', 1, 10n],
          ['key_b', 2, 101n],
        ]);
        expect((await store().totalsByKey(acc, { fromMs: T0 + 150 })).map((t) => t.costMicros)).toEqual([10n, 100n]);
        expect(await store().totalsByKey(newId('acc'), {})).toEqual([]);
      });

      it('answers zeros for an account with no records', async () => {
        const zero = {
          requests: 0,
          promptTokens: 0,
          completionTokens: 0,
          totalTokens: 0,
          costMicros: 0n,
          billedRubMicro: 0n,
          unbilledCostMicros: 0n,
        };
        expect(await store().totals(newId('acc'), {})).toEqual(zero);
        expect(await store().totals(newId('acc'), { fromMs: 1 })).toEqual(zero);
      });
    });

    describe('daily roll-ups', () => {
      it('buckets by UTC day, model and kind across midnight, ordered by day then model', async () => {
        const acc = newId('acc');
        await seed([
          rec(acc, { createdAtMs: MIDNIGHT - 1, model: 'b/model', costMicros: 1n }),
          rec(acc, { createdAtMs: MIDNIGHT - 2, model: 'a/model', costMicros: 2n }),
          rec(acc, { createdAtMs: MIDNIGHT - 3, model: 'a/model', costMicros: 4n, ...rub(4n, 400n) }),
          rec(acc, { createdAtMs: MIDNIGHT, model: 'a/model', costMicros: 8n }),
          rec(acc, { createdAtMs: MIDNIGHT + 5, model: 'a/model', kind: 'embedding', costMicros: 16n }),
        ]);
        await seed([rec(acc, { createdAtMs: MIDNIGHT + 86_399_999, model: 'a/model', costMicros: 32n })]);
        const t = (requests: number, costMicros: bigint, billedRubMicro = 0n, unbilledCostMicros = costMicros) => ({
          requests,
          promptTokens: 10 * requests,
          completionTokens: 5 * requests,
          totalTokens: 15 * requests,
          costMicros,
          billedRubMicro,
          unbilledCostMicros,
        });
        expect(await store().daily(acc, { fromDay: '2025-06-14', toDay: '2025-06-15' })).toEqual([
          { day: '2025-06-14', model: 'a/model', kind: 'chat', ...t(2, 6n, 400n, 2n) },
          { day: '2025-06-14', model: 'b/model', kind: 'chat', ...t(1, 1n) },
          { day: '2025-06-15', model: 'a/model', kind: 'chat', ...t(2, 40n) },
          { day: '2025-06-15', model: 'a/model', kind: 'embedding', ...t(1, 16n) },
        ]);
        expect((await store().daily(acc, { fromDay: '2025-06-15', toDay: '2025-06-15' })).map((d) => d.day)).toEqual([
          '2025-06-15',
          '2025-06-15',
        ]);
        expect(await store().daily(acc, { fromDay: '2025-06-16', toDay: '2025-07-01' })).toEqual([]);
        // Whole-day ranges and arbitrary ones must agree with the records (an implementation may use roll-ups).
        const DAY = 86_400_000;
        expect(await store().totals(acc, { fromMs: MIDNIGHT, toMs: MIDNIGHT + DAY })).toEqual(t(3, 56n));
        expect(await store().totals(acc, { fromMs: MIDNIGHT - DAY, toMs: MIDNIGHT })).toEqual(t(3, 7n, 400n, 3n));
        expect(await store().totals(acc, { toMs: MIDNIGHT, model: 'a/model' })).toEqual(t(2, 6n, 400n, 2n));
        expect(await store().totals(acc, { fromMs: MIDNIGHT + DAY })).toEqual(t(0, 0n));
        expect(await store().totals(acc, { fromMs: MIDNIGHT - 2, toMs: MIDNIGHT + 1 })).toEqual(t(3, 11n, 0n, 11n));
        expect(await store().totals(acc, { fromMs: MIDNIGHT - DAY })).toEqual(t(6, 63n, 400n, 59n));
        expect(await store().daily(newId('acc'), { fromDay: '2025-06-14', toDay: '2025-06-15' })).toEqual([]);
      });
    });

    describe('large batches', () => {
      it('reads 2,500 records of one account exactly, in list, totals and daily', async () => {
        const acc = newId('acc');
        const batch = Array.from({ length: 2_500 }, (_, i) =>
          rec(acc, { createdAtMs: MIDNIGHT - 1_250 + i, costMicros: BigInt(i + 1), model: i % 2 ? 'm/odd' : 'm/even' }),
        );
        await seed(batch);
        const sum = (n: number) => (BigInt(n) * BigInt(n + 1)) / 2n;
        expect(await store().totals(acc, {})).toMatchObject({ requests: 2_500, costMicros: sum(2_500) });
        const extra = Array.from({ length: 10 }, () =>
          rec(acc, { createdAtMs: MIDNIGHT + 5_000, costMicros: 1n, model: 'm/odd' }),
        );
        await seed(extra);
        expect(await store().totals(acc, {})).toMatchObject({ requests: 2_510, costMicros: sum(2_500) + 10n });
        const days = await store().daily(acc, { fromDay: '2025-06-14', toDay: '2025-06-15' });
        expect(days.map((d) => [d.day, d.model, d.requests])).toEqual([
          ['2025-06-14', 'm/even', 625],
          ['2025-06-14', 'm/odd', 625],
          ['2025-06-15', 'm/even', 625],
          ['2025-06-15', 'm/odd', 635],
        ]);
        expect(days.reduce((s, d) => s + d.costMicros, 0n)).toBe(sum(2_500) + 10n);
        expect(await store().list(acc, {}, { limit: 2, offset: 2_509 })).toEqual([batch[0]]);
      });
    });
  });
}

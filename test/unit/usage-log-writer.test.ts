import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UsageLogStore, UsageRecord } from '../../src/adapters/usage-log/index.js';
import { UsageLogWriter, UsageRecordsDroppedError } from '../../src/domain/usage-log-writer.js';

/** A store that records each append's ids and can be told to fail or to hold appends open. */
class FakeStore implements UsageLogStore {
  readonly batches: string[][] = [];
  failures = 0;
  private gate: Promise<void> | null = null;
  private openGate: (() => void) | null = null;

  hold(): void {
    this.gate = new Promise((resolve) => (this.openGate = resolve));
  }

  release(): void {
    this.openGate?.();
    this.gate = null;
  }

  get written(): string[] {
    return this.batches.flat();
  }

  async append(records: readonly UsageRecord[]): Promise<void> {
    if (this.gate) await this.gate;
    if (this.failures > 0) {
      this.failures -= 1;
      throw new Error('database down');
    }
    this.batches.push(records.map((r) => r.id));
  }

  list = async () => [];
  get = async () => null;
  totals = async () => ({ requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, costMicros: 0n, billedRubMicro: 0n, unbilledCostMicros: 0n });
  daily = async () => [];
}

let n = 0;
function rec(): UsageRecord {
  n += 1;
  return {
    id: `log_${n}`,
    accountId: 'acc_1',
    keyId: 'key_1',
    requestId: `req_${n}`,
    model: 'm',
    kind: 'chat',
    endpoint: '/v1/compat/chat/completions',
    promptTokens: 1,
    completionTokens: 1,
    cachedTokens: 0,
    reasoningTokens: 0,
    totalTokens: 2,
    costMicros: 1n,
    transferId: null,
    billedInRub: false,
    costRubMicro: null,
    fxRateRubMicro: null,
    createdAtMs: 1_750_000_000_000 + n,
    durationMs: 1,
    metadata: {},
  };
}

const ids = (records: UsageRecord[]) => records.map((r) => r.id);
/** Lets chained promise callbacks run without moving fake time. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('UsageLogWriter', () => {
  let store: FakeStore;
  let errors: unknown[];
  const make = (over: { flushMs?: number; maxBatch?: number; maxPending?: number } = {}) =>
    new UsageLogWriter(store, { flushMs: 1_000, maxBatch: 3, onError: (e) => errors.push(e), ...over });

  beforeEach(() => {
    vi.useFakeTimers();
    store = new FakeStore();
    errors = [];
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes one batch as soon as maxBatch records are pending', async () => {
    const writer = make();
    const rs = [rec(), rec(), rec()];
    writer.record(rs[0]!);
    writer.record(rs[1]!);
    await settle();
    expect(store.batches).toEqual([]);
    writer.record(rs[2]!);
    await settle();
    expect(store.batches).toEqual([ids(rs)]);
    expect(vi.getTimerCount()).toBe(0); // the size trigger cancelled the time trigger
  });

  it('writes a partial batch after flushMs, counted from the first pending record', async () => {
    const writer = make();
    const a = rec();
    const b = rec();
    writer.record(a);
    await vi.advanceTimersByTimeAsync(600);
    writer.record(b);
    await vi.advanceTimersByTimeAsync(399);
    expect(store.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(store.batches).toEqual([[a.id, b.id]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never blocks the caller and keeps one append in flight at a time', async () => {
    const writer = make();
    store.hold();
    const first = [rec(), rec(), rec()];
    for (const r of first) writer.record(r);
    await settle();
    const more = [rec(), rec(), rec(), rec()];
    for (const r of more) writer.record(r); // returns at once although the store is stuck
    expect(writer.pendingCount).toBe(4);
    store.release();
    await writer.flush();
    expect(store.batches).toEqual([ids(first), ids(more).slice(0, 3), ids(more).slice(3)]);
  });

  it('flush() writes everything pending, including records that arrived during an append in flight', async () => {
    const writer = make({ maxBatch: 100 });
    await writer.flush(); // nothing pending: resolves
    const a = rec();
    writer.record(a);
    store.hold();
    const firstFlush = writer.flush();
    await settle();
    const b = rec();
    writer.record(b);
    const secondFlush = writer.flush();
    store.release();
    await firstFlush;
    await secondFlush;
    expect(store.batches).toEqual([[a.id], [b.id]]);
    expect(writer.pendingCount).toBe(0);
  });

  it('keeps a failed batch, reports the error, and retries it first after flushMs', async () => {
    const writer = make();
    store.failures = 1;
    const failed = [rec(), rec(), rec()];
    for (const r of failed) writer.record(r);
    await settle();
    expect(errors).toEqual([new Error('database down')]);
    expect(writer.pendingCount).toBe(3);
    const later = [rec(), rec(), rec()];
    for (const r of later) writer.record(r); // a full batch, but the store is failing: wait for the timer
    await settle();
    expect(store.batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(store.written).toEqual([...ids(failed), ...ids(later)]);
    expect(store.batches.every((b) => b.length <= 3)).toBe(true);
  });

  it('drops the oldest records beyond maxPending and reports how many, once', async () => {
    const writer = make({ maxBatch: 2, maxPending: 4 });
    store.failures = 100;
    const rs = Array.from({ length: 9 }, rec);
    for (const r of rs) writer.record(r);
    await writer.flush();
    expect(writer.pendingCount).toBe(4);
    const dropped = errors.filter((e) => e instanceof UsageRecordsDroppedError);
    expect(dropped.reduce((sum, e) => sum + e.dropped, 0)).toBe(5);
    store.failures = 0;
    await writer.flush();
    expect(store.written).toEqual(ids(rs.slice(5)));
  });

  it('survives an onError callback that throws', async () => {
    const writer = new UsageLogWriter(store, {
      flushMs: 1_000,
      maxBatch: 1,
      onError: () => {
        throw new Error('logger broken');
      },
    });
    store.failures = 1;
    const r = rec();
    writer.record(r);
    await expect(writer.flush()).resolves.toBeUndefined();
    await expect(writer.flush()).resolves.toBeUndefined();
    expect(store.written).toEqual([r.id]);
  });

  it('stop() clears the timer and flushes; later records are written straight away', async () => {
    const writer = make();
    const a = rec();
    writer.record(a);
    expect(vi.getTimerCount()).toBe(1);
    await writer.stop();
    expect(vi.getTimerCount()).toBe(0);
    expect(store.batches).toEqual([[a.id]]);
    const late = rec();
    writer.record(late);
    await writer.flush();
    expect(store.batches).toEqual([[a.id], [late.id]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects nonsensical options', () => {
    expect(() => make({ maxBatch: 0 })).toThrow(RangeError);
    expect(() => make({ flushMs: -1 })).toThrow(RangeError);
  });
});

describe('UsageLogWriter timers', () => {
  it('does not keep the process alive (the timer is unref’d)', async () => {
    const spy = vi.spyOn(globalThis, 'setTimeout');
    try {
      const writer = new UsageLogWriter(new FakeStore(), { flushMs: 60_000, maxBatch: 10, onError: () => undefined });
      writer.record(rec());
      const timer = spy.mock.results.at(-1)?.value as NodeJS.Timeout;
      expect(timer.hasRef()).toBe(false);
      await writer.stop();
    } finally {
      spy.mockRestore();
    }
  });
});

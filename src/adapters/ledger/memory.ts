import type { UsageRecord } from '../usage-log/index.js';
import type { MemoryUsageLogStore } from '../usage-log/memory.js';
import type { DailyIncrement } from '../usage-log/totals.js';
import { type LotSlice, lotDeltas } from './allocation-plan.js';
import { BatchingLedger, type BatchingOptions, type LedgerEngine, type OpResult } from './batching-ledger.js';
import type { Entry } from './entries.js';
import type { Allocation, Balance, Lot, LotSpec, Micros } from './index.js';
import { applyOp, BatchTotals, type Book, expireDue, type LedgerOp } from './operations.js';

interface Cell {
  available: Micros;
  held: Micros;
}

interface StoredLot extends Lot {
  seq: number;
}

const copyEntry = (e: Entry): Entry => ({ ...e, allocations: e.allocations.map((a) => ({ ...a })) });
const copyLot = ({ seq: _seq, ...lot }: StoredLot): Lot => ({ ...lot });
const spendingOrder = (a: StoredLot, b: StoredLot) => a.createdAtMs - b.createdAtMs || a.seq - b.seq;

/** The ledger's state as maps: the memory engine's Book (operations.ts). Entries are copied in and out. */
class MemoryBook implements Book {
  readonly balances = new Map<string, Cell>();
  readonly entries = new Map<string, Entry>();
  readonly byAccount = new Map<string, Entry[]>();
  readonly refunds = new Map<string, string[]>();
  readonly pending = new Set<string>();
  readonly lots = new Map<string, StoredLot>();
  readonly lotsByAccount = new Map<string, StoredLot[]>();
  private lotSeq = 0;

  constructor(private readonly usage: MemoryUsageLogStore) {}

  entry(id: string): Entry | null {
    const e = this.entries.get(id);
    return e ? copyEntry(e) : null;
  }

  insertEntry(e: Entry): void {
    const stored = copyEntry(e);
    this.entries.set(e.id, stored);
    listIn(this.byAccount, e.accountId).push(stored);
    if (e.refundOf !== null) listIn(this.refunds, e.refundOf).push(e.id);
    if (e.status === 'pending') this.pending.add(e.id);
  }

  updateEntry(e: Entry): void {
    const stored = this.entries.get(e.id);
    if (!stored) throw new Error(`ledger: cannot update unknown entry ${e.id}`);
    // The account list holds the same object: update it in place.
    Object.assign(stored, copyEntry(e));
    if (e.status === 'pending') this.pending.add(e.id);
    else this.pending.delete(e.id);
  }

  balance(accountId: string): { available: Micros; held: Micros } | null {
    const cell = this.balances.get(accountId);
    return cell ? { ...cell } : null;
  }

  moveBalance(accountId: string, availableDelta: Micros, heldDelta: Micros): void {
    let cell = this.balances.get(accountId);
    if (!cell) this.balances.set(accountId, (cell = { available: 0n, held: 0n }));
    cell.available += availableDelta;
    cell.held += heldDelta;
  }

  spendableLots(accountId: string): LotSlice[] {
    return (this.lotsByAccount.get(accountId) ?? []).filter((l) => l.remainingMicros > 0n).map((l) => ({ ...l }));
  }

  insertLot(lot: Lot): void {
    const stored = { ...lot, seq: ++this.lotSeq };
    this.lots.set(lot.id, stored);
    const list = listIn(this.lotsByAccount, lot.accountId);
    list.push(stored);
    list.sort(spendingOrder); // usually already in order: top-ups arrive in time order
  }

  lotSpec(lotId: string): LotSpec | null {
    const lot = this.lots.get(lotId);
    return lot ? { currency: lot.currency, fxRateRubMicro: lot.fxRateRubMicro } : null;
  }

  applyPlan(transferId: string, plan: readonly Allocation[]): void {
    for (const [lotId, delta] of lotDeltas(plan)) {
      const lot = this.lots.get(lotId);
      if (!lot) throw new Error(`ledger: allocation names unknown lot ${lotId}`);
      lot.remainingMicros += delta;
    }
    const e = this.entries.get(transferId);
    if (e) e.allocations = plan.map((a) => ({ ...a }));
  }

  refundAllocations(refundOf: string): { consumed: Allocation[]; earlier: Allocation[] } {
    const consumed = this.entries.get(refundOf)?.allocations ?? [];
    const earlier = (this.refunds.get(refundOf) ?? []).flatMap((id) => this.entries.get(id)?.allocations ?? []);
    return { consumed: consumed.map((a) => ({ ...a })), earlier: earlier.map((a) => ({ ...a })) };
  }

  dueHolds(nowMs: number, limit: number): Entry[] {
    return [...this.pending]
      .map((id) => this.entries.get(id)!)
      .filter((e) => e.expiresAtMs !== null && e.expiresAtMs <= nowMs)
      .sort((a, b) => a.expiresAtMs! - b.expiresAtMs!)
      .slice(0, limit)
      .map(copyEntry);
  }

  insertUsage(record: UsageRecord): void {
    this.usage.insert(record);
  }

  addDaily(increments: readonly DailyIncrement[]): void {
    this.usage.addDaily(increments);
  }

  lotsWithMoney(accountId: string): Lot[] {
    return (this.lotsByAccount.get(accountId) ?? []).filter((l) => l.remainingMicros > 0n).map(copyLot);
  }
}

function listIn<T>(map: Map<string, T[]>, key: string): T[] {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  return list;
}

/**
 * The in-process engine, for tests and single-process demos. Every call does all of its work synchronously, so
 * it is atomic in JS. There is no rollback: an operation that throws has written nothing (operations.ts makes
 * every check first), so each keeps its own result.
 */
class MemoryEngine implements LedgerEngine {
  readonly firstWrite = 'end-of-turn';
  constructor(private readonly book: MemoryBook) {}

  async apply(ops: readonly LedgerOp[]): Promise<OpResult[]> {
    const totals = new BatchTotals();
    const results = ops.map((op): OpResult => {
      try {
        return { ok: true, outcome: applyOp(this.book, op, totals) };
      } catch (error) {
        return { ok: false, error };
      }
    });
    totals.writeTo(this.book);
    return results;
  }

  async expire(nowMs: number, limit: number): Promise<number> {
    return expireDue(this.book, nowMs, limit);
  }

  async entry(id: string): Promise<Entry | null> {
    return this.book.entry(id);
  }

  async balance(accountId: string): Promise<Balance> {
    const cell = this.book.balance(accountId);
    return { accountId, availableMicros: cell?.available ?? 0n, heldMicros: cell?.held ?? 0n };
  }

  async listLots(accountId: string): Promise<Lot[]> {
    return this.book.lotsWithMoney(accountId);
  }

  async postedSpend(accountId: string, range: { fromMs?: number; toMs?: number }): Promise<Micros> {
    let sum = 0n;
    for (const e of this.book.byAccount.get(accountId) ?? []) {
      if (e.postedAtMs === null || e.spendMicros === 0n) continue;
      if (range.fromMs !== undefined && e.postedAtMs < range.fromMs) continue;
      if (range.toMs !== undefined && e.postedAtMs >= range.toMs) continue;
      sum += e.spendMicros;
    }
    return sum;
  }

  async sumOfAllBalances(): Promise<Micros> {
    let sum = 0n;
    for (const cell of this.book.balances.values()) sum += cell.available + cell.held;
    return sum;
  }
}

/** The memory ledger: usage lines go to `usage`, the memory twin of the usage log. */
export function memoryLedger(usage: MemoryUsageLogStore, options?: BatchingOptions): BatchingLedger {
  return new BatchingLedger(new MemoryEngine(new MemoryBook(usage)), options);
}

/**
 * One batch's view of the SQLite Book (README.md "Group commit"): the rows a batch keeps coming back to are read
 * once and written once. Under load a batch is a run of captures from the same lease: each would read the lease's
 * hold and the account's lots, and update the hold, the balance and a lot; here the first capture reads them, every
 * capture updates the copies, and `flush` (before the commit) writes each changed row once. Inserts (transfers,
 * allocations, lots, usage lines) go straight through, so every row a later statement may refer to exists.
 *
 * The CHECK constraints the database applies to each UPDATE it no longer sees are applied here to every step
 * (`assertBalance`, `assertEntry`), so an operation that would break one still throws at that step, and the batch
 * is rolled back and retried one operation per write (batching-ledger.ts), as before.
 */
import type { UsageRecord } from '../usage-log/index.js';
import type { DailyIncrement } from '../usage-log/totals.js';
import { type LotSlice, lotDeltas } from './allocation-plan.js';
import type { Entry } from './entries.js';
import type { Allocation, Lot, LotSpec, Micros } from './index.js';
import type { Book } from './operations.js';
import type { SqliteBook } from './sqlite-book.js';

interface Cell {
  available: Micros;
  held: Micros;
  /** What this batch has moved and not yet written. */
  movedAvailable: Micros;
  movedHeld: Micros;
  /** False while the account has no row (moveBalance creates it). */
  stored: boolean;
}

export class BatchBook implements Book {
  /** Entries read or written in this batch (null: known not to exist), and those whose update is not yet written. */
  private readonly entries = new Map<string, Entry | null>();
  private readonly dirty = new Set<string>();
  private readonly balances = new Map<string, Cell>();
  /** Each account's spendable lots as read (the same slices by lot id), kept current; lot moves not yet written. */
  private readonly lots = new Map<string, LotSlice[]>();
  private readonly slices = new Map<string, LotSlice>();
  private readonly lotMoves = new Map<string, Micros>();

  constructor(private readonly book: SqliteBook) {}

  entry(id: string): Entry | null {
    let e = this.entries.get(id);
    if (e === undefined) this.entries.set(id, (e = this.book.entry(id)));
    return e;
  }

  insertEntry(e: Entry): void {
    this.book.insertEntry(e);
    this.entries.set(e.id, e);
  }

  updateEntry(e: Entry): void {
    assertEntry(e);
    this.entries.set(e.id, e);
    this.dirty.add(e.id);
  }

  balance(accountId: string): { available: Micros; held: Micros } | null {
    const cell = this.cell(accountId);
    return cell.stored || cell.movedAvailable !== 0n || cell.movedHeld !== 0n
      ? { available: cell.available, held: cell.held }
      : null;
  }

  moveBalance(accountId: string, availableDelta: Micros, heldDelta: Micros): void {
    const cell = this.cell(accountId);
    cell.available += availableDelta;
    cell.held += heldDelta;
    assertBalance(accountId, cell);
    cell.movedAvailable += availableDelta;
    cell.movedHeld += heldDelta;
  }

  spendableLots(accountId: string): LotSlice[] {
    let slices = this.lots.get(accountId);
    if (slices === undefined) {
      slices = this.book.spendableLots(accountId);
      this.lots.set(accountId, slices);
      for (const slice of slices) this.slices.set(slice.id, slice);
    }
    return slices.filter((slice) => slice.remainingMicros > 0n).map((slice) => ({ ...slice }));
  }

  /** Spending from lots this batch has read moves its copies; anything else (a refund's restore) is written at once. */
  applyPlan(transferId: string, plan: readonly Allocation[]): void {
    const deltas = lotDeltas(plan);
    if (![...deltas].every(([lotId, delta]) => delta <= 0n && this.slices.has(lotId))) {
      this.forgetLots();
      this.book.applyPlan(transferId, plan);
      return;
    }
    for (const [lotId, delta] of deltas) {
      const slice = this.slices.get(lotId)!;
      slice.remainingMicros += delta;
      if (slice.remainingMicros < 0n) throw new Error(`ledger: lot ${lotId} would go below zero`);
      this.lotMoves.set(lotId, (this.lotMoves.get(lotId) ?? 0n) + delta);
    }
    this.book.insertAllocations(transferId, plan);
  }

  insertLot(lot: Lot): void {
    this.forgetLots();
    this.book.insertLot(lot);
  }

  lotSpec(lotId: string): LotSpec | null {
    return this.book.lotSpec(lotId);
  }

  refundAllocations(refundOf: string): { consumed: Allocation[]; earlier: Allocation[] } {
    return this.book.refundAllocations(refundOf);
  }

  dueHolds(nowMs: number, limit: number): Entry[] {
    this.flush();
    this.entries.clear();
    return this.book.dueHolds(nowMs, limit);
  }

  insertUsage(record: UsageRecord): void {
    this.book.insertUsage(record);
  }

  addDaily(increments: readonly DailyIncrement[]): void {
    this.book.addDaily(increments);
  }

  /** Writes every row this batch changed and has not written yet; called before the commit. */
  flush(): void {
    for (const id of this.dirty) this.book.updateEntry(this.entries.get(id)!);
    this.dirty.clear();
    for (const [accountId, cell] of this.balances) {
      this.book.moveBalance(accountId, cell.movedAvailable, cell.movedHeld);
      if (cell.movedAvailable !== 0n || cell.movedHeld !== 0n) cell.stored = true;
      cell.movedAvailable = 0n;
      cell.movedHeld = 0n;
    }
    this.book.moveLots(this.lotMoves);
    this.lotMoves.clear();
  }

  private cell(accountId: string): Cell {
    let cell = this.balances.get(accountId);
    if (cell === undefined) {
      const row = this.book.balance(accountId);
      cell = {
        available: row?.available ?? 0n,
        held: row?.held ?? 0n,
        movedAvailable: 0n,
        movedHeld: 0n,
        stored: row !== null,
      };
      this.balances.set(accountId, cell);
    }
    return cell;
  }

  /** Writes the lot moves so far and drops the copies: the next read sees the lots as stored. */
  private forgetLots(): void {
    this.book.moveLots(this.lotMoves);
    this.lotMoves.clear();
    this.lots.clear();
    this.slices.clear();
  }
}

/** ledger_balances' CHECKs (migration 0002): held never below 0; available never below 0 but for system accounts. */
function assertBalance(accountId: string, cell: Cell): void {
  if (cell.held < 0n || (cell.available < 0n && !/^system:/i.test(accountId))) {
    throw new Error(
      `ledger: the balance of ${accountId} would break its constraint (available ${cell.available}, held ${cell.held})`,
    );
  }
}

/** ledger_transfers' CHECKs (migration 0002). */
function assertEntry(e: Entry): void {
  if (e.amountMicros < 0n || e.refundedMicros < 0n || e.refundedMicros > (e.postedMicros ?? 0n)) {
    throw new Error(
      `ledger: entry ${e.id} would break its constraint (amount ${e.amountMicros}, refunded ${e.refundedMicros}, posted ${e.postedMicros})`,
    );
  }
}

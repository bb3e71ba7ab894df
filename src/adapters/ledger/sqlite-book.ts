/**
 * The SQLite engine's Book (operations.ts): the ledger tables (migration 0002) and the usage log (migration 0003)
 * through statements prepared once per better-sqlite3 connection. Everything here runs inside the caller's
 * transaction and never awaits.
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { UsageRecord } from '../usage-log/index.js';
import { rollupRow, usageRow } from '../usage-log/sql.js';
import type { DailyIncrement } from '../usage-log/totals.js';
import { type LotSlice, lotDeltas } from './allocation-plan.js';
import type { Entry } from './entries.js';
import type { Allocation, Lot, LotSpec, Micros } from './index.js';
import type { Book } from './operations.js';
import { type AllocationRow, type EntryRow, toAllocation, toEntry, toRow } from './sql-rows.js';

type Statement = BetterSqlite3.Statement;

/** Reads that carry money: safeIntegers makes every integer column a bigint, so no amount is rounded. */
const MONEY_READS = {
  entry: 'SELECT * FROM ledger_transfers WHERE id = ?',
  allocations:
    'SELECT lot_id, amount_micros, fx_rate_rub_micro FROM ledger_allocations WHERE transfer_id = ? ORDER BY seq',
  // A charge's allocations and those of its refunds so far.
  refundAllocations:
    'SELECT a.transfer_id, a.lot_id, a.amount_micros, a.fx_rate_rub_micro FROM ledger_allocations a ' +
    'JOIN ledger_transfers t ON t.id = a.transfer_id WHERE t.id = @id OR t.refund_of = @id ORDER BY a.transfer_id, a.seq',
  lotSpec: 'SELECT currency, fx_rate_rub_micro FROM ledger_lots WHERE id = ?',
  balance: 'SELECT available_micros, held_micros FROM ledger_balances WHERE account_id = ?',
  // `remaining_micros > 0` as a literal, so the partial spending-order index applies.
  spendableLots:
    'SELECT id, account_id, currency, amount_micros, remaining_micros, fx_rate_rub_micro, created_at_ms FROM ledger_lots ' +
    'WHERE account_id = ? AND remaining_micros > 0 ORDER BY created_at_ms, seq',
  dueHolds:
    "SELECT * FROM ledger_transfers WHERE status = 'pending' AND expires_at_ms <= @now ORDER BY expires_at_ms LIMIT @limit",
  postedSpend:
    'SELECT COALESCE(SUM(spend_micros), 0) AS total FROM ledger_transfers ' +
    'WHERE account_id = @account AND posted_at_ms IS NOT NULL AND posted_at_ms >= @from AND posted_at_ms < @to',
  sumOfBalances: 'SELECT COALESCE(SUM(available_micros + held_micros), 0) AS total FROM ledger_balances',
} as const;

const ENTRY_COLUMNS =
  'id, account_id, kind, status, amount_micros, posted_micros, refunded_micros, spend_micros, refund_of, hold_id, memo, created_at_ms, expires_at_ms, resolved_at_ms, posted_at_ms';
const USAGE_COLUMNS =
  'id, account_id, key_id, request_id, model, kind, endpoint, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, ' +
  'total_tokens, cost_micros, transfer_id, billed_in_rub, cost_rub_micro, fx_rate_rub_micro, created_at_ms, duration_ms, metadata';
const DAILY_SUMS = [
  'requests',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_micros',
  'billed_rub_micro',
  'unbilled_cost_micros',
];
const named = (columns: string) =>
  columns
    .split(', ')
    .map((c) => `@${c}`)
    .join(', ');

const WRITES = {
  insertEntry: `INSERT INTO ledger_transfers (${ENTRY_COLUMNS}) VALUES (${named(ENTRY_COLUMNS)})`,
  // Two statements, because SQLite rewrites the entries of every index whose columns an UPDATE names, changed or not:
  // a capture, which only draws a hold's amount down, then dirties no index page (two WAL pages fewer per charge).
  updateAmounts:
    'UPDATE ledger_transfers SET amount_micros = @amount_micros, posted_micros = @posted_micros, refunded_micros = @refunded_micros, ' +
    'spend_micros = @spend_micros WHERE id = @id',
  updateState:
    'UPDATE ledger_transfers SET status = @status, expires_at_ms = @expires_at_ms, resolved_at_ms = @resolved_at_ms, posted_at_ms = @posted_at_ms ' +
    'WHERE id = @id AND (status IS NOT @status OR expires_at_ms IS NOT @expires_at_ms OR resolved_at_ms IS NOT @resolved_at_ms OR posted_at_ms IS NOT @posted_at_ms)',
  // An update, and an insert only for a new account: an upsert would check the CHECK constraints against the
  // delta as if it were the new row, refusing a debit of an existing balance.
  moveBalance:
    'UPDATE ledger_balances SET available_micros = available_micros + @available, held_micros = held_micros + @held WHERE account_id = @account',
  insertBalance:
    'INSERT INTO ledger_balances (account_id, available_micros, held_micros) VALUES (@account, @available, @held)',
  insertLot:
    'INSERT INTO ledger_lots (id, account_id, currency, amount_micros, remaining_micros, fx_rate_rub_micro, created_at_ms) ' +
    'VALUES (@id, @account, @currency, @amount, @remaining, @rate, @at)',
  moveLot: 'UPDATE ledger_lots SET remaining_micros = remaining_micros + @delta WHERE id = @id',
  insertAllocation:
    'INSERT INTO ledger_allocations (transfer_id, seq, lot_id, amount_micros, fx_rate_rub_micro) VALUES (@transfer, @seq, @lot, @amount, @rate)',
  insertUsage: `INSERT INTO usage_records (${USAGE_COLUMNS}) VALUES (${named(USAGE_COLUMNS)})`,
  addDaily:
    `INSERT INTO usage_daily (account_id, day, model, kind, ${DAILY_SUMS.join(', ')}) VALUES (@account_id, @day, @model, @kind, ${named(DAILY_SUMS.join(', '))}) ` +
    `ON CONFLICT (account_id, day, model, kind) DO UPDATE SET ${DAILY_SUMS.map((c) => `${c} = ${c} + excluded.${c}`).join(', ')}`,
} as const;

export type Statements = { [K in keyof typeof MONEY_READS | keyof typeof WRITES]: Statement };

/** What one connection keeps for the ledger: its Book, and one transaction wrapper that runs work on it. */
export interface Prepared {
  book: SqliteBook;
  // Built once: better-sqlite3 builds five wrapper functions per transaction() call, more than a small read costs.
  transaction: BetterSqlite3.Transaction<(work: (book: SqliteBook) => unknown) => unknown>;
}

const cache = new WeakMap<BetterSqlite3.Database, Prepared>();

/**
 * The ledger's statements on this connection, prepared on first use with the driver's own `prepare` (not the
 * text-keyed cache connect.ts installs): safeIntegers is state of the statement object, and a knex query with
 * the same text must not start receiving bigints.
 */
export function preparedFor(conn: BetterSqlite3.Database): Prepared {
  let prepared = cache.get(conn);
  if (!prepared) {
    const driverPrepare = (Object.getPrototypeOf(conn) as BetterSqlite3.Database).prepare;
    const prepare = (sql: string): Statement => driverPrepare.call(conn, sql);
    const reads = Object.entries(MONEY_READS).map(([name, sql]) => [name, prepare(sql).safeIntegers(true)]);
    const writes = Object.entries(WRITES).map(([name, sql]) => [name, prepare(sql)]);
    const book = new SqliteBook(Object.fromEntries([...reads, ...writes]) as Statements);
    prepared = { book, transaction: conn.transaction((work: (book: SqliteBook) => unknown) => work(book)) };
    cache.set(conn, prepared);
  }
  return prepared;
}

export class SqliteBook implements Book {
  constructor(readonly s: Statements) {}

  entry(id: string): Entry | null {
    const row = this.s.entry.get(id) as EntryRow | undefined;
    return row ? this.withAllocations(row) : null;
  }

  insertEntry(e: Entry): void {
    this.s.insertEntry.run(toRow(e));
  }

  updateEntry(e: Entry): void {
    const row = toRow(e);
    this.s.updateAmounts.run(row);
    this.s.updateState.run(row);
  }

  balance(accountId: string): { available: Micros; held: Micros } | null {
    const row = this.s.balance.get(accountId) as { available_micros: bigint; held_micros: bigint } | undefined;
    return row ? { available: row.available_micros, held: row.held_micros } : null;
  }

  moveBalance(accountId: string, availableDelta: Micros, heldDelta: Micros): void {
    if (availableDelta === 0n && heldDelta === 0n) return;
    const row = { account: accountId, available: availableDelta, held: heldDelta };
    if (this.s.moveBalance.run(row).changes === 0) this.s.insertBalance.run(row);
  }

  spendableLots(accountId: string): LotSlice[] {
    const rows = this.s.spendableLots.all(accountId) as {
      id: string;
      remaining_micros: bigint;
      fx_rate_rub_micro: bigint;
    }[];
    return rows.map((r) => ({ id: r.id, remainingMicros: r.remaining_micros, fxRateRubMicro: r.fx_rate_rub_micro }));
  }

  insertLot(lot: Lot): void {
    const {
      id,
      accountId: account,
      currency,
      amountMicros: amount,
      remainingMicros: remaining,
      fxRateRubMicro: rate,
      createdAtMs: at,
    } = lot;
    this.s.insertLot.run({ id, account, currency, amount, remaining, rate, at });
  }

  lotSpec(lotId: string): LotSpec | null {
    const row = this.s.lotSpec.get(lotId) as { currency: LotSpec['currency']; fx_rate_rub_micro: bigint } | undefined;
    return row ? { currency: row.currency, fxRateRubMicro: row.fx_rate_rub_micro } : null;
  }

  applyPlan(transferId: string, plan: readonly Allocation[]): void {
    this.moveLots(lotDeltas(plan));
    this.insertAllocations(transferId, plan);
  }

  /** Adds each delta to its lot's remaining. */
  moveLots(deltas: ReadonlyMap<string, Micros>): void {
    for (const [id, delta] of deltas) if (delta !== 0n) this.s.moveLot.run({ id, delta });
  }

  /** Records a plan as the transfer's allocations, in order. */
  insertAllocations(transferId: string, plan: readonly Allocation[]): void {
    plan.forEach((a, seq) =>
      this.s.insertAllocation.run({
        transfer: transferId,
        seq,
        lot: a.lotId,
        amount: a.amountMicros,
        rate: a.fxRateRubMicro,
      }),
    );
  }

  refundAllocations(refundOf: string): { consumed: Allocation[]; earlier: Allocation[] } {
    const consumed: Allocation[] = [];
    const earlier: Allocation[] = [];
    for (const r of this.s.refundAllocations.all({ id: refundOf }) as AllocationRow[])
      (r.transfer_id === refundOf ? consumed : earlier).push(toAllocation(r));
    return { consumed, earlier };
  }

  dueHolds(nowMs: number, limit: number): Entry[] {
    return (this.s.dueHolds.all({ now: nowMs, limit: BigInt(limit) }) as EntryRow[]).map((row) => toEntry(row, []));
  }

  insertUsage(record: UsageRecord): void {
    const row = usageRow(record);
    row.billed_in_rub = Number(record.billedInRub); // better-sqlite3 binds no booleans; knex reads 0/1 back the same way
    this.s.insertUsage.run(row);
  }

  addDaily(increments: readonly DailyIncrement[]): void {
    for (const increment of increments) this.s.addDaily.run(rollupRow(increment));
  }

  /** An entry with its allocations (only posted entries have any, so others skip the query). */
  private withAllocations(row: EntryRow): Entry {
    const allocations =
      row.status === 'posted' ? (this.s.allocations.all(row.id) as AllocationRow[]).map(toAllocation) : [];
    return toEntry(row, allocations);
  }
}

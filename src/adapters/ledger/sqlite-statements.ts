/**
 * The SQL of the native SQLite ledger (sqlite.ts): the statements the knex ledger issues (sql.ts, sql-money.ts,
 * sql-rows.ts) against the same tables (migration 0002), prepared once per better-sqlite3 connection, and the
 * synchronous row helpers built on them, which sqlite.ts runs inside one transaction per operation.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { lotDeltas, planConsumption, planRestore } from './allocation-plan.js';
import type { Entry } from './entries.js';
import type { Allocation, LotSpec, Micros } from './index.js';
import { micros, toEntry, toRow, type EntryRow, type LotRow } from './sql-rows.js';

type Statement = BetterSqlite3.Statement;

/** Rows reading these carry money: safeIntegers makes every integer column a bigint, so no amount is rounded. */
const MONEY_READS = {
  entry: 'SELECT * FROM ledger_transfers WHERE id = ?',
  allocations: 'SELECT lot_id, amount_micros, fx_rate_rub_micro FROM ledger_allocations WHERE transfer_id = ? ORDER BY seq',
  // The refunded transfer's allocations and those of its earlier refunds (sql-money.ts restoreLots).
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
    "SELECT id, account_id, amount_micros FROM ledger_transfers WHERE status = 'pending' AND expires_at_ms <= @now " +
    'ORDER BY expires_at_ms LIMIT @limit',
  postedSpend:
    'SELECT COALESCE(SUM(spend_micros), 0) AS total FROM ledger_transfers ' +
    'WHERE account_id = @account AND posted_at_ms IS NOT NULL AND posted_at_ms >= @from AND posted_at_ms < @to',
  sumOfBalances: 'SELECT COALESCE(SUM(available_micros + held_micros), 0) AS total FROM ledger_balances',
} as const;

const WRITES = {
  // DO NOTHING rather than a caught unique violation, as in sql-rows.ts insertEntry; changes = 0 means the id exists.
  insertEntry:
    'INSERT INTO ledger_transfers (id, account_id, kind, status, amount_micros, posted_micros, refunded_micros, spend_micros, ' +
    'refund_of, memo, created_at_ms, expires_at_ms, resolved_at_ms, posted_at_ms) VALUES (@id, @account_id, @kind, @status, ' +
    '@amount_micros, @posted_micros, @refunded_micros, @spend_micros, @refund_of, @memo, @created_at_ms, @expires_at_ms, ' +
    '@resolved_at_ms, @posted_at_ms) ON CONFLICT (id) DO NOTHING',
  post:
    "UPDATE ledger_transfers SET status = 'posted', posted_micros = @posted, spend_micros = @posted, resolved_at_ms = @now, " +
    'posted_at_ms = @now WHERE id = @id',
  resolve: 'UPDATE ledger_transfers SET status = @status, resolved_at_ms = @now WHERE id = @id',
  addRefunded: 'UPDATE ledger_transfers SET refunded_micros = refunded_micros + @amount WHERE id = @id',
  // The only statement that lowers a user's available balance: the check and the write are one (README.md).
  takeAvailable:
    'UPDATE ledger_balances SET available_micros = available_micros - @amount, held_micros = held_micros + @held ' +
    'WHERE account_id = @account AND available_micros >= @amount',
  unhold:
    'UPDATE ledger_balances SET held_micros = held_micros - @held, available_micros = available_micros + @back ' +
    'WHERE account_id = @account AND held_micros >= @held',
  addAvailable:
    'INSERT INTO ledger_balances (account_id, available_micros, held_micros) VALUES (@account, @delta, 0) ' +
    'ON CONFLICT (account_id) DO UPDATE SET available_micros = ledger_balances.available_micros + excluded.available_micros',
  insertLot:
    'INSERT INTO ledger_lots (id, account_id, currency, amount_micros, remaining_micros, fx_rate_rub_micro, created_at_ms) ' +
    'VALUES (@id, @account, @currency, @amount, @amount, @rate, @at)',
  moveLot: 'UPDATE ledger_lots SET remaining_micros = remaining_micros + @delta WHERE id = @id',
  insertAllocation:
    'INSERT INTO ledger_allocations (transfer_id, seq, lot_id, amount_micros, fx_rate_rub_micro) VALUES (@transfer, @seq, @lot, @amount, @rate)',
} as const;

export type Statements = { [K in keyof typeof MONEY_READS | keyof typeof WRITES]: Statement };

/** What one connection keeps for the ledger: its statements, and one transaction wrapper that runs work on them. */
export interface Prepared {
  statements: Statements;
  // Built once: better-sqlite3 builds five wrapper functions per transaction() call, more than a small read costs.
  transaction: BetterSqlite3.Transaction<(work: (s: Statements) => unknown) => unknown>;
}

const cache = new WeakMap<BetterSqlite3.Database, Prepared>();

/**
 * The ledger's statements on this connection, prepared on first use. They are prepared with the driver's own
 * `prepare`, not the text-keyed cache connect.ts may install on the connection: safeIntegers is state of the
 * statement object, and a knex.raw query with the same text must not start receiving bigints.
 */
export function preparedFor(conn: BetterSqlite3.Database): Prepared {
  let prepared = cache.get(conn);
  if (!prepared) {
    const driverPrepare = (Object.getPrototypeOf(conn) as BetterSqlite3.Database).prepare;
    const prepare = (sql: string): Statement => driverPrepare.call(conn, sql);
    const reads = Object.entries(MONEY_READS).map(([name, sql]) => [name, prepare(sql).safeIntegers(true)]);
    const writes = Object.entries(WRITES).map(([name, sql]) => [name, prepare(sql)]);
    const statements = Object.fromEntries([...reads, ...writes]) as Statements;
    prepared = { statements, transaction: conn.transaction((work: (s: Statements) => unknown) => work(statements)) };
    cache.set(conn, prepared);
  }
  return prepared;
}

// Synchronous counterparts of sql-rows.ts / sql-money.ts: the same rows, written in the same order. Each runs
// inside the caller's better-sqlite3 transaction (BEGIN IMMEDIATE for writes: SQLite's write lock throughout).

interface AllocationRow {
  transfer_id?: string;
  lot_id: string;
  amount_micros: bigint;
  fx_rate_rub_micro: bigint;
}

const toAllocation = (r: AllocationRow): Allocation => ({ lotId: r.lot_id, amountMicros: r.amount_micros, fxRateRubMicro: r.fx_rate_rub_micro });

/** Inserts the entry unless its id exists (then false: the caller compares the stored request). */
export function insertEntry(s: Statements, e: Entry): boolean {
  return s.insertEntry.run(toRow(e)).changes === 1;
}

/** One hold or transfer by id, with its allocations (only posted entries have any, so others skip the query). */
export function loadEntry(s: Statements, id: string): Entry | null {
  const row = s.entry.get(id) as EntryRow | undefined;
  if (!row) return null;
  const allocations = row.status === 'posted' ? (s.allocations.all(id) as AllocationRow[]).map(toAllocation) : [];
  return toEntry(row, allocations);
}

/** The rate and currency of a credit's lot (same id), for comparing a replayed credit. */
export function loadLotSpec(s: Statements, lotId: string): LotSpec | null {
  const row = s.lotSpec.get(lotId) as { currency: LotSpec['currency']; fx_rate_rub_micro: bigint } | undefined;
  return row ? { currency: row.currency, fxRateRubMicro: row.fx_rate_rub_micro } : null;
}

export function readBalance(s: Statements, accountId: string): { available: Micros; held: Micros } {
  const row = s.balance.get(accountId) as { available_micros: bigint; held_micros: bigint } | undefined;
  return { available: row?.available_micros ?? 0n, held: row?.held_micros ?? 0n };
}

/** The conditional debit of README.md; false when the money is not there (or the account does not exist). */
export function takeAvailable(s: Statements, accountId: string, amount: Micros, toHeld: boolean): boolean {
  return s.takeAvailable.run({ account: accountId, amount, held: toHeld ? amount : 0n }).changes === 1;
}

/** Ends a hold on the balance: `held` leaves held, of which `back` returns to available (the rest was posted). */
export function unhold(s: Statements, accountId: string, held: Micros, back: Micros): void {
  if (s.unhold.run({ account: accountId, held, back }).changes !== 1) {
    throw new Error(`ledger: ${accountId} holds less than its pending hold of ${held} micros`);
  }
}

/** Adds (or, for system accounts, subtracts) money, creating the balance row on first use. */
export function addAvailable(s: Statements, accountId: string, delta: Micros): void {
  if (delta !== 0n) s.addAvailable.run({ account: accountId, delta });
}

/** Writes a lot plan: each lot's remaining moves, and the transfer records one allocation per step. */
function applyPlan(s: Statements, transferId: string, plan: readonly Allocation[]): void {
  for (const [id, delta] of lotDeltas(plan)) s.moveLot.run({ id, delta });
  plan.forEach((a, seq) => s.insertAllocation.run({ transfer: transferId, seq, lot: a.lotId, amount: a.amountMicros, rate: a.fxRateRubMicro }));
}

/** Posted spend takes money from the account's lots, oldest first (allocation-plan.ts), and records which paid. */
export function consumeLots(s: Statements, accountId: string, transferId: string, amount: Micros): Allocation[] {
  if (amount === 0n) return [];
  const rows = s.spendableLots.all(accountId) as LotRow[];
  const lots = rows.map((r) => ({ id: r.id, remainingMicros: micros(r.remaining_micros), fxRateRubMicro: micros(r.fx_rate_rub_micro) }));
  const plan = planConsumption(accountId, lots, amount);
  applyPlan(s, transferId, plan);
  return plan;
}

/** A refund gives money back to the lots that paid for `refundOf`, most recently consumed first, net of earlier refunds. */
export function restoreLots(s: Statements, refundOf: string, refundId: string, amount: Micros): Allocation[] {
  const consumed: Allocation[] = [];
  const earlier: Allocation[] = [];
  for (const r of s.refundAllocations.all({ id: refundOf }) as AllocationRow[]) (r.transfer_id === refundOf ? consumed : earlier).push(toAllocation(r));
  const plan = planRestore(consumed, earlier, amount);
  applyPlan(s, refundId, plan);
  return plan;
}

/** Expires up to `limit` pending holds due at `nowMs`: all of their money goes back to available. Returns how many. */
export function expireDue(s: Statements, nowMs: number, limit: number): number {
  const rows = s.dueHolds.all({ now: nowMs, limit: BigInt(limit) }) as { id: string; account_id: string; amount_micros: bigint }[];
  const byAccount = new Map<string, Micros>();
  for (const r of rows) {
    s.resolve.run({ id: r.id, status: 'expired', now: nowMs });
    byAccount.set(r.account_id, (byAccount.get(r.account_id) ?? 0n) + r.amount_micros);
  }
  for (const [accountId, held] of byAccount) unhold(s, accountId, held, held);
  return rows.length;
}

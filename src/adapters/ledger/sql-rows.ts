/**
 * Rows of the ledger tables (migration 0002) and their conversion to entries. pg returns int8 as BigInt
 * (connect.ts), SQLite as number, SUM over int8 in pg as a numeric string: everything goes through micros()/ms().
 */
import type { Knex } from 'knex';
import type { DatabaseKind } from '../../db/connect.js';
import type { Entry, EntryKind } from './entries.js';
import type { Allocation, HoldStatus, Lot, LotSpec, Micros } from './index.js';

type Int = number | bigint | string;

/** One transaction and the dialect it runs on (FOR UPDATE exists only on PostgreSQL). */
export interface Tx {
  q: Knex.Transaction;
  kind: DatabaseKind;
}

export function micros(v: Int): Micros {
  // A number beyond 2^53 has already lost money: fail loudly rather than round (SQLite returns plain numbers).
  if (typeof v === 'number' && !Number.isSafeInteger(v)) throw new RangeError(`ledger: unsafe integer ${v} read from the database`);
  return BigInt(v);
}

/**
 * A bigint as a query binding. Both drivers bind BigInt exactly (pg sends its decimal text, better-sqlite3 an
 * int64); knex's types just do not list bigint among binding values.
 */
export const big = (v: Micros): Knex.Value => v as unknown as Knex.Value;

const ms = (v: Int): number => Number(v);
const msOrNull = (v: Int | null): number | null => (v === null ? null : Number(v));

export interface EntryRow {
  id: string;
  account_id: string;
  kind: string;
  status: string;
  amount_micros: Int;
  posted_micros: Int | null;
  refunded_micros: Int;
  spend_micros: Int;
  refund_of: string | null;
  memo: string;
  created_at_ms: Int;
  expires_at_ms: Int | null;
  resolved_at_ms: Int | null;
  posted_at_ms: Int | null;
}

interface AllocationRow {
  transfer_id: string;
  seq: Int;
  lot_id: string;
  amount_micros: Int;
  fx_rate_rub_micro: Int;
}

export interface LotRow {
  id: string;
  account_id: string;
  currency: string;
  amount_micros: Int;
  remaining_micros: Int;
  fx_rate_rub_micro: Int;
  created_at_ms: Int;
}

export const LOT_COLUMNS = ['id', 'account_id', 'currency', 'amount_micros', 'remaining_micros', 'fx_rate_rub_micro', 'created_at_ms'];

export function toEntry(row: EntryRow, allocations: Allocation[]): Entry {
  return {
    id: row.id,
    accountId: row.account_id,
    kind: row.kind as EntryKind,
    status: row.status as HoldStatus,
    amountMicros: micros(row.amount_micros),
    postedMicros: row.posted_micros === null ? null : micros(row.posted_micros),
    refundedMicros: micros(row.refunded_micros),
    spendMicros: micros(row.spend_micros),
    refundOf: row.refund_of,
    memo: row.memo,
    createdAtMs: ms(row.created_at_ms),
    expiresAtMs: msOrNull(row.expires_at_ms),
    resolvedAtMs: msOrNull(row.resolved_at_ms),
    postedAtMs: msOrNull(row.posted_at_ms),
    allocations,
  };
}

/** The row to insert for a new entry (allocations live in their own table). */
export function toRow(e: Entry): EntryRow {
  return {
    id: e.id,
    account_id: e.accountId,
    kind: e.kind,
    status: e.status,
    amount_micros: e.amountMicros,
    posted_micros: e.postedMicros,
    refunded_micros: e.refundedMicros,
    spend_micros: e.spendMicros,
    refund_of: e.refundOf,
    memo: e.memo,
    created_at_ms: e.createdAtMs,
    expires_at_ms: e.expiresAtMs,
    resolved_at_ms: e.resolvedAtMs,
    posted_at_ms: e.postedAtMs,
  };
}

export function toAllocation(row: AllocationRow): Allocation {
  return { lotId: row.lot_id, amountMicros: micros(row.amount_micros), fxRateRubMicro: micros(row.fx_rate_rub_micro) };
}

export function toLot(row: LotRow): Lot {
  return {
    id: row.id,
    accountId: row.account_id,
    currency: row.currency as LotSpec['currency'],
    amountMicros: micros(row.amount_micros),
    remainingMicros: micros(row.remaining_micros),
    fxRateRubMicro: micros(row.fx_rate_rub_micro),
    createdAtMs: ms(row.created_at_ms),
  };
}

/** Allocations of the given transfers, each list in its recorded (consumption) order. */
export async function loadAllocations(q: Knex | Knex.Transaction, transferIds: readonly string[]): Promise<Map<string, Allocation[]>> {
  const out = new Map<string, Allocation[]>(transferIds.map((id) => [id, []]));
  if (transferIds.length === 0) return out;
  const rows = (await q('ledger_allocations').select('*').whereIn('transfer_id', transferIds).orderBy(['transfer_id', 'seq'])) as AllocationRow[];
  for (const row of rows) out.get(row.transfer_id)?.push(toAllocation(row));
  return out;
}

/**
 * One hold or transfer by id, with its allocations (only posted entries have any, so others skip the query).
 * `lock` takes the row lock on PostgreSQL, the first lock of the operation (README.md lock order).
 */
export async function loadEntry(db: Knex | Knex.Transaction, id: string, lock?: DatabaseKind): Promise<Entry | null> {
  const query = db('ledger_transfers').select('*').where('id', id);
  if (lock === 'postgres') void query.forUpdate();
  const row = (await query.first()) as EntryRow | undefined;
  if (!row) return null;
  const allocations = row.status === 'posted' ? ((await loadAllocations(db, [id])).get(id) ?? []) : [];
  return toEntry(row, allocations);
}

/** The rate and currency of a credit's lot (same id), for comparing a replayed credit. */
export async function loadLotSpec(q: Knex | Knex.Transaction, lotId: string): Promise<LotSpec | null> {
  const row = (await q('ledger_lots').select(LOT_COLUMNS).where('id', lotId).first()) as LotRow | undefined;
  return row ? { currency: row.currency as LotSpec['currency'], fxRateRubMicro: micros(row.fx_rate_rub_micro) } : null;
}

/**
 * Inserts the entry unless its id exists: `ON CONFLICT (id) DO NOTHING` instead of catching a unique violation,
 * because a failed statement aborts a PostgreSQL transaction. A concurrent insert of the same id makes this wait
 * for that transaction, then report the conflict (or insert, if it rolled back). False when the id exists.
 */
export async function insertEntry(tx: Tx, e: Entry): Promise<boolean> {
  const inserted = (await tx.q('ledger_transfers').insert(toRow(e)).onConflict('id').ignore().returning('id')) as unknown[];
  return inserted.length > 0;
}

/**
 * Rows of the ledger tables (migration 0002) and their conversion to entries. pg returns int8 as BigInt
 * (connect.ts), the plpgsql functions as JSON numbers, SQLite's ledger statements as bigint, SUM over int8 in pg
 * as a numeric string: everything goes through micros()/ms().
 */
import type { Entry, EntryKind } from './entries.js';
import type { Allocation, HoldStatus, Lot, LotSpec, Micros } from './index.js';

type Int = number | bigint | string;

export function micros(v: Int): Micros {
  // A number beyond 2^53 has already lost money: fail loudly rather than round (SQLite returns plain numbers).
  if (typeof v === 'number' && !Number.isSafeInteger(v))
    throw new RangeError(`ledger: unsafe integer ${v} read from the database`);
  return BigInt(v);
}

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
  hold_id: string | null;
  memo: string;
  created_at_ms: Int;
  expires_at_ms: Int | null;
  resolved_at_ms: Int | null;
  posted_at_ms: Int | null;
}

/** An allocation as read: the transfer and seq only where a query asks for them. */
export interface AllocationRow {
  transfer_id?: string;
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

export const LOT_COLUMNS = [
  'id',
  'account_id',
  'currency',
  'amount_micros',
  'remaining_micros',
  'fx_rate_rub_micro',
  'created_at_ms',
];

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
    holdId: row.hold_id,
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
    hold_id: e.holdId,
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

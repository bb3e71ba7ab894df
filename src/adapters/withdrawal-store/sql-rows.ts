import type {
  NewWithdrawal,
  WithdrawalAddress,
  WithdrawalChange,
  WithdrawalRecord,
  WithdrawalStatus,
} from './index.js';

/** Integer columns arrive as number (SQLite) or BigInt (pg int8); amounts stay bigint, times become numbers. */
type Int = number | bigint | string;

export interface WithdrawalRow {
  id: string;
  account_id: string;
  address: string;
  amount_micros: Int;
  fee_micros: Int;
  status: string;
  approved_by: string | null;
  txid: string | null;
  signed_hex: string | null;
  expiration_ms: Int | null;
  block_number: Int | null;
  failure_reason: string | null;
  created_at_ms: Int;
  updated_at_ms: Int;
  finished_at_ms: Int | null;
}

export interface WithdrawalAddressRow {
  id: string;
  account_id: string;
  address: string;
  label: string | null;
  created_at_ms: Int;
  usable_from_ms: Int;
}

const ms = (v: Int | null): number | null => (v === null ? null : Number(v));

/**
 * A bigint as it is bound: decimal text, which both databases store in their int8 column (SQLite by its INTEGER
 * affinity). knex cannot print a BigInt binding, so one in a failing statement would hide the database's error.
 */
export const int = (v: bigint): string => v.toString();

export function toWithdrawal(row: WithdrawalRow): WithdrawalRecord {
  // txid, bytes and expiration are written together by recordSignature, so one present means all are.
  const signed =
    row.txid === null || row.signed_hex === null || row.expiration_ms === null
      ? null
      : { txid: row.txid, hex: row.signed_hex, expirationMs: Number(row.expiration_ms) };
  return {
    id: row.id,
    accountId: row.account_id,
    address: row.address,
    amountMicros: BigInt(row.amount_micros),
    feeMicros: BigInt(row.fee_micros),
    status: row.status as WithdrawalStatus,
    approvedBy: row.approved_by,
    signed,
    blockNumber: ms(row.block_number),
    failureReason: row.failure_reason,
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    finishedAtMs: ms(row.finished_at_ms),
  };
}

export function newWithdrawalRow(w: NewWithdrawal): WithdrawalRow {
  return {
    id: w.id,
    account_id: w.accountId,
    address: w.address,
    amount_micros: int(w.amountMicros),
    fee_micros: int(w.feeMicros),
    status: 'requested',
    approved_by: null,
    txid: null,
    signed_hex: null,
    expiration_ms: null,
    block_number: null,
    failure_reason: null,
    created_at_ms: w.createdAtMs,
    updated_at_ms: w.createdAtMs,
    finished_at_ms: null,
  };
}

/** The columns a state change sets: its status, the fields it carries, and the time. */
export function changeColumns(change: WithdrawalChange, atMs: number): Partial<WithdrawalRow> {
  const columns: Partial<WithdrawalRow> = { status: change.status, updated_at_ms: atMs };
  if (change.approvedBy !== undefined) columns.approved_by = change.approvedBy;
  if (change.blockNumber !== undefined) columns.block_number = change.blockNumber;
  if (change.failureReason !== undefined) columns.failure_reason = change.failureReason;
  if (change.finishedAtMs !== undefined) columns.finished_at_ms = change.finishedAtMs;
  return columns;
}

export function toAddress(row: WithdrawalAddressRow): WithdrawalAddress {
  return {
    id: row.id,
    accountId: row.account_id,
    address: row.address,
    label: row.label,
    createdAtMs: Number(row.created_at_ms),
    usableFromMs: Number(row.usable_from_ms),
  };
}

export function addressRow(a: WithdrawalAddress): WithdrawalAddressRow {
  return {
    id: a.id,
    account_id: a.accountId,
    address: a.address,
    label: a.label,
    created_at_ms: a.createdAtMs,
    usable_from_ms: a.usableFromMs,
  };
}

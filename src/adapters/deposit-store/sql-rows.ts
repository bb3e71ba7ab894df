import type { DepositRecord, DepositStatus, NewDeposit } from './index.js';

/** Integer columns arrive as number (SQLite) or BigInt (pg int8); amounts stay bigint, times become numbers. */
type Int = number | bigint | string;

export interface DepositRow {
  id: string;
  account_id: string;
  method: string;
  processor: string;
  processor_ref: string | null;
  charge_ref: string | null;
  status: string;
  amount_minor: Int | null;
  currency: string;
  credited_micros: Int | null;
  fx_rate_rub_micro: Int | null;
  refunded_micros: Int;
  checkout_url: string | null;
  address: string | null;
  tx_id: string | null;
  created_at_ms: Int;
  updated_at_ms: Int;
  credited_at_ms: Int | null;
}

const big = (v: Int | null): bigint | null => (v === null ? null : BigInt(v));
const ms = (v: Int | null): number | null => (v === null ? null : Number(v));

export function toDeposit(row: DepositRow): DepositRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    method: row.method as DepositRecord['method'],
    processor: row.processor as DepositRecord['processor'],
    processorRef: row.processor_ref,
    chargeRef: row.charge_ref,
    status: row.status as DepositStatus,
    amountMinor: big(row.amount_minor),
    currency: row.currency as DepositRecord['currency'],
    creditedMicros: big(row.credited_micros),
    fxRateRubMicro: big(row.fx_rate_rub_micro),
    refundedMicros: BigInt(row.refunded_micros),
    checkoutUrl: row.checkout_url,
    address: row.address,
    txId: row.tx_id,
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    creditedAtMs: ms(row.credited_at_ms),
  };
}

/**
 * A bigint as it is bound: decimal text, which both databases store in their int8 column (SQLite by its INTEGER
 * affinity). knex cannot print a BigInt binding, so one in a failing statement would hide the database's error.
 */
export const int = (v: bigint | null): string | null => (v === null ? null : v.toString());

export function newDepositRow(d: NewDeposit): DepositRow {
  return {
    id: d.id,
    account_id: d.accountId,
    method: d.method,
    processor: d.processor,
    processor_ref: d.processorRef,
    charge_ref: null,
    status: d.status,
    amount_minor: int(d.amountMinor),
    currency: d.currency,
    credited_micros: null,
    fx_rate_rub_micro: null,
    refunded_micros: '0',
    checkout_url: d.checkoutUrl,
    address: d.address,
    tx_id: d.txId,
    created_at_ms: d.createdAtMs,
    updated_at_ms: d.createdAtMs,
    credited_at_ms: null,
  };
}

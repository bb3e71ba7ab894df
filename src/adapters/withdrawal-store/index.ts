/**
 * The withdrawal-store port (SPEC 1.10, issue 27 item 4, DESIGN.md 11; research/payments.md 5.3, 8.2, 8.4): each
 * account's allow-listed TRON addresses and its USDT-TRC20 withdrawals through their whole life. Money itself is in
 * the ledger: a withdrawal's amount and fee are a hold `withdrawal:<id>` from request to settlement.
 *
 * The store is what makes the pipeline exact across processes and kill -9:
 * - `create` admits a withdrawal only within the caps it is given (the account's withdrawable earnings, the
 *   account's and everyone's daily totals), checked and inserted as one serialized step, so two requests racing
 *   for one balance cannot both pass;
 * - every state change is a compare-and-set on the states it expects;
 * - `recordSignature` stores the one signed transaction a withdrawal will ever have: once a withdrawal holds
 *   signed bytes, nothing replaces them, so it is never signed twice and every (re)broadcast sends those bytes.
 */

export type WithdrawalStatus =
  /** Admitted; its ledger hold is being placed (a crash here is finished by the pipeline). */
  | 'requested'
  /** Held, above the auto-approval threshold: waits for an operator (`admin payments withdrawals approve`). */
  | 'pending_review'
  /** Held and approved: waits for the signer. */
  | 'approved'
  /** The signer stored its signed transaction; not yet accepted by a node. */
  | 'signed'
  /** A node accepted the bytes; waits for a solidified block. */
  | 'broadcast'
  /** In a solidified block with a SUCCESS receipt; the hold is posted. Final. */
  | 'completed'
  /** Reverted on chain, expired unconfirmed, or its hold could not be placed; the hold is released. Final. */
  | 'failed'
  /** Refused by an operator; the hold is released. Final. */
  | 'rejected';

/** States whose amount counts against the caps (every state but the two that gave the money back). */
export const ACTIVE_WITHDRAWAL_STATUSES: readonly WithdrawalStatus[] = [
  'requested',
  'pending_review',
  'approved',
  'signed',
  'broadcast',
  'completed',
];

export interface WithdrawalAddress {
  /** `wad_…`. */
  id: string;
  accountId: string;
  /** Base58check `T…`, canonical. */
  address: string;
  label: string | null;
  createdAtMs: number;
  /** When the cooling period ends: no withdrawal to it before (research/payments.md 5.3). */
  usableFromMs: number;
}

export interface SignedTransaction {
  txid: string;
  /** The signed `Transaction` bytes, hex: exactly what every broadcast sends. */
  hex: string;
  /** The transaction's `raw.expiration` (chain time, ms): after it, absent from a solidified block means never. */
  expirationMs: number;
}

export interface WithdrawalRecord {
  /** `wd_…`. */
  id: string;
  accountId: string;
  /** The destination, copied from the address book when requested. */
  address: string;
  /** What is sent, in USDT base units = micro-USD. */
  amountMicros: bigint;
  /** The platform's fee, kept from the hold on settlement. */
  feeMicros: bigint;
  status: WithdrawalStatus;
  /** Who approved it: `auto`, or the operator's name. */
  approvedBy: string | null;
  signed: SignedTransaction | null;
  /** The block that holds the transaction, once solidified. */
  blockNumber: number | null;
  /** Why it failed or was rejected. */
  failureReason: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  /** When it was completed, failed or rejected. */
  finishedAtMs: number | null;
}

export type NewWithdrawal = Pick<WithdrawalRecord, 'id' | 'accountId' | 'address' | 'amountMicros' | 'feeMicros'> & {
  createdAtMs: number;
};

/** The caps `create` checks, all on amount + fee of active withdrawals. */
export interface WithdrawalCaps {
  /** What the account may have withdrawn in all (its matured earnings): active withdrawals + this one ≤ it. */
  accountTotalMicros: bigint;
  /** Active withdrawals created since `dayStartMs` + this one: ≤ the first per account, ≤ the second in total. */
  accountDailyMicros: bigint;
  globalDailyMicros: bigint;
  dayStartMs: number;
}

export type CreateWithdrawalOutcome =
  | { ok: true; withdrawal: WithdrawalRecord }
  | {
      ok: false;
      reason: 'account_total' | 'account_daily' | 'global_daily';
      /** What the cap still allows (amount + fee), ≥ 0. */
      remainingMicros: bigint;
    };

export type CapRefusal = Extract<CreateWithdrawalOutcome, { ok: false }>;

/** A state change: the fields to set along with the new status. */
export interface WithdrawalChange {
  status: WithdrawalStatus;
  approvedBy?: string;
  blockNumber?: number;
  failureReason?: string;
  /** Set for completed, failed and rejected. */
  finishedAtMs?: number;
}

export interface WithdrawalStore {
  /** 'address_taken' when the account already has this address. */
  addAddress(address: WithdrawalAddress): Promise<{ ok: true } | { ok: false; reason: 'address_taken' }>;
  /** Oldest first. */
  listAddresses(accountId: string): Promise<WithdrawalAddress[]>;
  getAddress(id: string): Promise<WithdrawalAddress | null>;
  /** False when the account has no such address. */
  removeAddress(accountId: string, id: string): Promise<boolean>;

  /** Admits the withdrawal in state `requested` if it fits every cap (one serialized step across processes). */
  create(withdrawal: NewWithdrawal, caps: WithdrawalCaps): Promise<CreateWithdrawalOutcome>;
  /**
   * The refusal `create` would answer now, or null; writes nothing and takes no lock, so `create` still decides. Lets
   * a request be refused before its one-time code is spent.
   */
  check(withdrawal: NewWithdrawal, caps: WithdrawalCaps): Promise<CapRefusal | null>;
  get(id: string): Promise<WithdrawalRecord | null>;
  /** Newest first. */
  list(accountId: string, page: { limit: number; offset: number }): Promise<WithdrawalRecord[]>;
  /** Every withdrawal in id order, `limit` at a time after `afterId` (null: from the start), for reconciliation. */
  scan(afterId: string | null, limit: number): Promise<WithdrawalRecord[]>;
  /** Σ amount + fee of the account's active withdrawals. */
  activeTotal(accountId: string): Promise<bigint>;
  /** Up to `limit` withdrawals in any of `statuses`, oldest first (the pipeline and the signer). */
  inStatus(statuses: readonly WithdrawalStatus[], limit: number): Promise<WithdrawalRecord[]>;
  /** from ∈ `expected` → `change`; the record as it is now, or null when it was not in an expected state. */
  transition(
    id: string,
    expected: readonly WithdrawalStatus[],
    change: WithdrawalChange,
    atMs: number,
  ): Promise<WithdrawalRecord | null>;
  /**
   * approved → signed with its one signed transaction; null when it was not approved or already holds a signature
   * (the caller then drops its own: it was never sent).
   */
  recordSignature(id: string, signed: SignedTransaction, atMs: number): Promise<WithdrawalRecord | null>;
}

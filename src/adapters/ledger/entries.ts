/**
 * What every engine stores per id (a hold or a posted transfer: one id space, README.md "Idempotency"), and the
 * decisions they share, so the memory twin, SQLite and the plpgsql function answer every edge case the same way.
 */

import type { UsageRecord } from '../usage-log/index.js';
import type {
  Allocation,
  Hold,
  HoldStatus,
  LotSpec,
  Micros,
  Payee,
  ReleaseOutcome,
  SettleOutcome,
  Transfer,
  TransferKind,
  UsageLine,
} from './index.js';

export type EntryKind = 'hold' | TransferKind;

export interface Entry {
  id: string;
  accountId: string;
  kind: EntryKind;
  /** Holds move through the state machine; debits, captures, credits and refunds are born `posted`. */
  status: HoldStatus;
  /** Holds: what is still reserved (captures lower it). Others: what was asked. */
  amountMicros: Micros;
  /** Holds: the settled amount (null until posted). Others: what moved (the amount, or less after a shortfall). */
  postedMicros: Micros | null;
  /** Σ refunds of this entry so far (≤ postedMicros). */
  refundedMicros: Micros;
  /** Signed contribution to postedSpend: +posted for settles and debits, −amount for refunds, 0 otherwise. */
  spendMicros: Micros;
  /** Refunds: the refunded charge. */
  refundOf: string | null;
  /** Captures: the hold they were taken from. */
  holdId: string | null;
  memo: string;
  createdAtMs: number;
  expiresAtMs: number | null;
  resolvedAtMs: number | null;
  /** When the money moved (settle time for holds); postedSpend ranges filter on it. */
  postedAtMs: number | null;
  allocations: Allocation[];
}

/** What every call that creates an entry supplies. */
export interface EntryInput {
  id: string;
  accountId: string;
  amountMicros: Micros;
  nowMs: number;
  memo?: string;
}

/** A new entry; the defaults describe a transfer born posted at nowMs, `extra` overrides them. */
export function newEntry(input: EntryInput, kind: EntryKind, extra: Partial<Entry> = {}): Entry {
  return {
    id: input.id,
    accountId: input.accountId,
    kind,
    status: 'posted',
    amountMicros: input.amountMicros,
    postedMicros: input.amountMicros,
    refundedMicros: 0n,
    spendMicros: 0n,
    refundOf: null,
    holdId: null,
    memo: input.memo ?? '',
    createdAtMs: input.nowMs,
    expiresAtMs: null,
    resolvedAtMs: null,
    postedAtMs: input.nowMs,
    allocations: [],
    ...extra,
  };
}

const copyAllocations = (list: readonly Allocation[]): Allocation[] => list.map((a) => ({ ...a }));

export function toHold(e: Entry): Hold {
  return {
    id: e.id,
    accountId: e.accountId,
    amountMicros: e.amountMicros,
    status: e.status,
    postedMicros: e.postedMicros,
    createdAtMs: e.createdAtMs,
    expiresAtMs: e.expiresAtMs ?? e.createdAtMs,
    resolvedAtMs: e.resolvedAtMs,
    allocations: copyAllocations(e.allocations),
  };
}

export function toTransfer(e: Entry & { kind: TransferKind }): Transfer {
  return {
    id: e.id,
    accountId: e.accountId,
    kind: e.kind,
    amountMicros: e.amountMicros,
    postedMicros: e.postedMicros ?? e.amountMicros,
    createdAtMs: e.createdAtMs,
    refundOf: e.refundOf,
    holdId: e.holdId,
    allocations: copyAllocations(e.allocations),
    memo: e.memo,
  };
}

export function isTransfer(e: Entry): e is Entry & { kind: TransferKind } {
  return e.kind !== 'hold';
}

/** Only money that was actually spent can come back: a posted debit or capture, or a settled hold. */
export function isRefundable(e: Entry | null | undefined): e is Entry {
  return !!e && e.status === 'posted' && (e.kind === 'debit' || e.kind === 'capture' || e.kind === 'hold');
}

export const refundableMicros = (e: Entry): Micros => (e.postedMicros ?? 0n) - e.refundedMicros;

/**
 * What a second call with an existing id must match to be a replay (memo, ttl, usage and a debit's or capture's payee
 * are not part of the request: a replay writes nothing, so it never pays a payee twice).
 */
export type ReplayKey =
  | { kind: 'hold' | 'debit'; accountId: string; amountMicros: Micros }
  | { kind: 'credit'; accountId: string; amountMicros: Micros; lot: LotSpec }
  | { kind: 'refund'; refundOf: string; amountMicros: Micros }
  | { kind: 'capture'; holdId: string; amountMicros: Micros };

export function isSameRequest(e: Entry, key: ReplayKey, storedLot: LotSpec | null): boolean {
  if (e.kind !== key.kind || e.amountMicros !== key.amountMicros) return false;
  if (key.kind === 'refund') return e.refundOf === key.refundOf;
  if (key.kind === 'capture') return e.holdId === key.holdId;
  if (e.accountId !== key.accountId) return false;
  if (key.kind !== 'credit') return true;
  return (
    storedLot !== null && storedLot.currency === key.lot.currency && storedLot.fxRateRubMicro === key.lot.fxRateRubMicro
  );
}

/** Pending past its expiry: treated as expired whether or not the sweeper got there (README.md, TigerBeetle timeouts). */
export const isDue = (e: Entry, nowMs: number): boolean =>
  e.status === 'pending' && e.expiresAtMs !== null && e.expiresAtMs <= nowMs;

/** What settle/release must do; `entry` is the pending hold to act on. */
/** A hold found due: it is expired on the spot, whatever was asked (README.md "Hold state machine"). */
type Expire = { act: 'expire'; entry: Entry };

export type SettleDecision = { act: 'post'; entry: Entry } | Expire | { act: 'answer'; outcome: SettleOutcome };

/** What a settle posts: at most the hold (README.md "A hold is a ceiling"). */
export const cappedAt = (amountMicros: Micros, holdMicros: Micros): Micros =>
  amountMicros < holdMicros ? amountMicros : holdMicros;

export function decideSettle(e: Entry | null | undefined, amountMicros: Micros, nowMs: number): SettleDecision {
  if (e?.kind !== 'hold') return { act: 'answer', outcome: { ok: false, reason: 'hold_not_found' } };
  if (e.status === 'posted') {
    if (e.postedMicros === cappedAt(amountMicros, e.amountMicros)) {
      return { act: 'answer', outcome: { ok: true, hold: toHold(e), replayed: true, lossMicros: 0n, usage: null } };
    }
    return { act: 'answer', outcome: { ok: false, reason: 'idempotency_conflict' } };
  }
  if (e.status !== 'pending')
    return { act: 'answer', outcome: { ok: false, reason: 'hold_not_pending', status: e.status } };
  return isDue(e, nowMs) ? { act: 'expire', entry: e } : { act: 'post', entry: e };
}

export type ReleaseDecision = { act: 'void'; entry: Entry } | Expire | { act: 'answer'; outcome: ReleaseOutcome };

/** The answer to settle/release of a hold found due: it has just been expired. */
export const expiredAnswer = () => ({ ok: false, reason: 'hold_not_pending', status: 'expired' }) as const;

export function decideRelease(e: Entry | null | undefined, nowMs: number): ReleaseDecision {
  if (e?.kind !== 'hold') return { act: 'answer', outcome: { ok: false, reason: 'hold_not_found' } };
  if (e.status === 'voided') return { act: 'answer', outcome: { ok: true, hold: toHold(e), replayed: true } };
  if (e.status !== 'pending')
    return { act: 'answer', outcome: { ok: false, reason: 'hold_not_pending', status: e.status } };
  return isDue(e, nowMs) ? { act: 'expire', entry: e } : { act: 'void', entry: e };
}

/** Why a hold cannot be extended or captured from (the answers extend and capture share). */
type NotPending =
  | { ok: false; reason: 'hold_not_found' }
  | { ok: false; reason: 'hold_not_pending'; status: HoldStatus };

export type PendingDecision = { act: 'use'; entry: Entry } | Expire | { act: 'answer'; outcome: NotPending };

/** What extend and capture may act on: a pending hold that is not due. */
export function decidePending(e: Entry | null | undefined, nowMs: number): PendingDecision {
  if (e?.kind !== 'hold') return { act: 'answer', outcome: { ok: false, reason: 'hold_not_found' } };
  if (e.status !== 'pending')
    return { act: 'answer', outcome: { ok: false, reason: 'hold_not_pending', status: e.status } };
  return isDue(e, nowMs) ? { act: 'expire', entry: e } : { act: 'use', entry: e };
}

/** Amounts are programmer input: a non-positive one is a bug in the caller, so it throws rather than answering. */
export function assertAmount(name: string, value: Micros, allowZero = false): void {
  if (typeof value !== 'bigint' || value < 0n || (!allowZero && value === 0n)) {
    throw new RangeError(
      `ledger: ${name} must be a ${allowZero ? 'non-negative' : 'positive'} bigint (got ${String(value)})`,
    );
  }
}

export function assertLot(lot: LotSpec): void {
  if (lot.currency !== 'USD' && lot.currency !== 'RUB') throw new RangeError(`ledger: lot currency must be USD or RUB`);
  assertAmount('lot.fxRateRubMicro', lot.fxRateRubMicro);
}

/**
 * A payee is owed a non-negative amount, into a valid lot, and is paid by someone else: paying the charged account its
 * own money back would be a refund in disguise. A capture's charged account is its hold's, which only the operation
 * reads: the call checks the rest (no `chargedAccountId`), the operation checks it all again with the account.
 */
export function assertPayee(payee: Payee, chargedAccountId?: string): void {
  assertAmount('payee.amountMicros', payee.amountMicros, true);
  assertLot(payee.lot);
  if (payee.accountId === chargedAccountId)
    throw new RangeError(`ledger: a payee must be another account than the one charged (${chargedAccountId})`);
}

export function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new RangeError(`ledger: ttlMs must be a positive integer (got ${ttlMs})`);
}

/** What a posting adds to the usage line it carries. */
export type UsagePosting = Pick<
  UsageRecord,
  'accountId' | 'transferId' | 'costMicros' | 'costRubMicro' | 'fxRateRubMicro'
>;

/**
 * The usage line as stored, completed with what its posting decided (both engines). Written out field by
 * field: twenty fields copied in (a spread, `Object.assign`) would leave a dictionary-mode object, or a new
 * hidden class per line (src/lib/copy-with.ts).
 */
export function storedUsage(line: UsageLine, posting: UsagePosting): UsageRecord {
  return {
    id: line.id,
    accountId: posting.accountId,
    keyId: line.keyId,
    requestId: line.requestId,
    model: line.model,
    kind: line.kind,
    endpoint: line.endpoint,
    promptTokens: line.promptTokens,
    completionTokens: line.completionTokens,
    cachedTokens: line.cachedTokens,
    reasoningTokens: line.reasoningTokens,
    totalTokens: line.totalTokens,
    costMicros: posting.costMicros,
    transferId: posting.transferId,
    billedInRub: line.billedInRub,
    costRubMicro: posting.costRubMicro,
    fxRateRubMicro: posting.fxRateRubMicro,
    createdAtMs: line.createdAtMs,
    durationMs: line.durationMs,
    metadata: line.metadata,
  };
}

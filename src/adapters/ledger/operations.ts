/**
 * Every ledger operation, written once (README.md "Shape"). The memory and SQLite engines run these over their
 * own `Book`; the plpgsql function `ledger_apply` (migration 0005) runs the same steps in PostgreSQL. Each
 * operation makes all of its checks and plans before its first write, so one that refuses or throws has
 * written nothing (the memory engine relies on it; SQL engines also have their transaction).
 */

import { usdMicrosToRubMicro } from '../../domain/billing/money.js';
import type { UsageRecord } from '../usage-log/index.js';
import { type DailyIncrement, rollUp } from '../usage-log/memory.js';
import { type LotSlice, planConsumption, planRestore } from './allocation-plan.js';
import {
  assertPayee,
  cappedAt,
  decidePending,
  decideRelease,
  decideSettle,
  type Entry,
  expiredAnswer,
  isRefundable,
  isSameRequest,
  isTransfer,
  newEntry,
  type ReplayKey,
  refundableMicros,
  storedUsage,
  toHold,
  toTransfer,
} from './entries.js';
import {
  type Allocation,
  type CaptureOutcome,
  type ExtendOutcome,
  type HoldOutcome,
  type Lot,
  type LotSpec,
  type Micros,
  type Payee,
  type ReleaseOutcome,
  type SettleOutcome,
  SYSTEM_ACCOUNTS,
  type TransferOutcome,
  type UsageLine,
} from './index.js';

/** One call of the port as data: what a batch carries (and what PostgreSQL receives as JSON). */
export type LedgerOp =
  | { op: 'hold'; id: string; accountId: string; amountMicros: Micros; nowMs: number; expiresAtMs: number }
  | { op: 'settle'; holdId: string; amountMicros: Micros; nowMs: number; usage: UsageLine | null }
  | {
      op: 'capture';
      id: string;
      holdId: string;
      amountMicros: Micros;
      capMicros: Micros;
      nowMs: number;
      usage: UsageLine | null;
      payee: Payee | null;
    }
  | { op: 'release'; holdId: string; nowMs: number }
  | { op: 'extend'; holdId: string; expiresAtMs: number; nowMs: number }
  | {
      op: 'debit';
      id: string;
      accountId: string;
      amountMicros: Micros;
      nowMs: number;
      memo: string;
      usage: UsageLine | null;
      allowShortfall: boolean;
      payee: Payee | null;
    }
  | { op: 'credit'; id: string; accountId: string; amountMicros: Micros; nowMs: number; memo: string; lot: LotSpec }
  | { op: 'refund'; id: string; refundOf: string; amountMicros: Micros; nowMs: number; memo: string };

export type OpOutcome = HoldOutcome | SettleOutcome | CaptureOutcome | ReleaseOutcome | ExtendOutcome | TransferOutcome;

/** The storage an engine gives the operations: synchronous reads and writes inside the batch's transaction. */
export interface Book {
  /** A hold or transfer by id, with its allocations when posted. */
  entry(id: string): Entry | null;
  insertEntry(e: Entry): void;
  /** Writes the mutable fields (status, amounts reserved, posted and refunded, times) of an entry that exists. */
  updateEntry(e: Entry): void;
  balance(accountId: string): { available: Micros; held: Micros } | null;
  /** Adds to available and held, creating the balance row on first use. */
  moveBalance(accountId: string, availableDelta: Micros, heldDelta: Micros): void;
  /** Lots with money left, in spending order. */
  spendableLots(accountId: string): LotSlice[];
  insertLot(lot: Lot): void;
  lotSpec(lotId: string): LotSpec | null;
  /** Moves each lot's remaining by a plan and records the plan as the transfer's allocations. */
  applyPlan(transferId: string, plan: readonly Allocation[]): void;
  /** A charge's allocations and those of its refunds so far. */
  refundAllocations(refundOf: string): { consumed: Allocation[]; earlier: Allocation[] };
  /** Pending holds due at nowMs, oldest expiry first. */
  dueHolds(nowMs: number, limit: number): Entry[];
  /** A usage line (its roll-up comes at the end of the batch, through addDaily). */
  insertUsage(record: UsageRecord): void;
  /** Adds to the daily roll-ups. */
  addDaily(increments: readonly DailyIncrement[]): void;
}

/**
 * What a batch owes the shared rows, written once at its end (README.md "Group commit"): the system accounts'
 * balances, and the daily usage roll-ups of the lines it wrote.
 */
export class BatchTotals {
  private readonly deltas = new Map<string, Micros>();
  private readonly usage: UsageRecord[] = [];

  add(accountId: string, delta: Micros): void {
    if (delta !== 0n) this.deltas.set(accountId, (this.deltas.get(accountId) ?? 0n) + delta);
  }

  used(record: UsageRecord): void {
    this.usage.push(record);
  }

  /** One write per system account touched, in a fixed order (README.md lock order), and per roll-up row. */
  writeTo(book: Book): void {
    for (const accountId of [...this.deltas.keys()].sort())
      book.moveBalance(accountId, this.deltas.get(accountId)!, 0n);
    if (this.usage.length > 0) book.addDaily(rollUp(this.usage));
  }
}

/** Applies one operation; the system accounts' share goes to `totals`. */
export function applyOp(book: Book, op: LedgerOp, totals: BatchTotals): OpOutcome {
  switch (op.op) {
    case 'hold':
      return hold(book, op);
    case 'settle':
      return settle(book, op, totals);
    case 'capture':
      return capture(book, op, totals);
    case 'release':
      return release(book, op);
    case 'extend':
      return extend(book, op);
    case 'debit':
      return debit(book, op, totals);
    case 'credit':
      return credit(book, op, totals);
    case 'refund':
      return refund(book, op, totals);
  }
}

/** Expires up to `limit` due holds (the sweeper); returns how many. */
export function expireDue(book: Book, nowMs: number, limit: number): number {
  const due = book.dueHolds(nowMs, limit);
  for (const e of due) resolve(book, e, 'expired', nowMs);
  return due.length;
}

/** Σ allocation × its lot's rate: what a posting cost in rubles, exactly (SPEC 4.3). */
export function rublesOf(allocations: readonly Allocation[]): bigint {
  return allocations.reduce((sum, a) => sum + usdMicrosToRubMicro(a.amountMicros, a.fxRateRubMicro), 0n);
}

/** The usage line as stored: completed from the posting (index.ts UsageLine). */
function usageRecord(
  line: UsageLine,
  accountId: string,
  transferId: string,
  costMicros: Micros,
  plan: readonly Allocation[],
): UsageRecord {
  const costRubMicro = line.billedInRub ? rublesOf(plan) : null;
  // The rate effectively applied, cost_rub / cost_usd half-up (SPEC 2.6 fx_rate_rub).
  const fxRateRubMicro =
    costRubMicro !== null && costMicros > 0n ? (costRubMicro * 1_000_000n + costMicros / 2n) / costMicros : null;
  return storedUsage(line, { accountId, transferId, costMicros, costRubMicro, fxRateRubMicro });
}

/** Writes a usage line first among an operation's writes (a failing write then leaves nothing), its roll-up later. */
function written(book: Book, totals: BatchTotals, usage: UsageRecord): void {
  book.insertUsage(usage);
  totals.used(usage);
}

/** What the platform absorbed beyond a charge (README.md "A hold is a ceiling"): losses → revenue. */
function postLoss(book: Book, totals: BatchTotals, chargeId: string, lossMicros: Micros, nowMs: number): void {
  if (lossMicros === 0n) return;
  const input = {
    id: `loss:${chargeId}`,
    accountId: SYSTEM_ACCOUNTS.losses,
    amountMicros: lossMicros,
    nowMs,
    memo: `absorbed beyond ${chargeId}`,
  };
  book.insertEntry(newEntry(input, 'loss'));
  totals.add(SYSTEM_ACCOUNTS.losses, -lossMicros);
  totals.add(SYSTEM_ACCOUNTS.revenue, lossMicros);
}

/** Money into an account: the posted entry and a lot carrying its id (README.md "Lots"), as credits and earnings add it. */
function fund(book: Book, e: Entry, lot: LotSpec): void {
  book.insertEntry(e);
  book.moveBalance(e.accountId, e.amountMicros, 0n);
  book.insertLot({
    id: e.id,
    accountId: e.accountId,
    ...lot,
    amountMicros: e.amountMicros,
    remainingMicros: e.amountMicros,
    createdAtMs: e.createdAtMs,
  });
}

/**
 * A payee's share of a charge (README.md "Payouts"): at most what the charge took, credited as `earning:<charge>`;
 * returns it, for the caller to take out of revenue. Nothing is written for a share of 0.
 */
function payOut(book: Book, chargeId: string, payee: Payee | null, taken: Micros, nowMs: number): Micros {
  if (payee === null) return 0n;
  const paid = cappedAt(payee.amountMicros, taken);
  if (paid === 0n) return 0n;
  const input = {
    id: `earning:${chargeId}`,
    accountId: payee.accountId,
    amountMicros: paid,
    nowMs,
    memo: `earning from ${chargeId}`,
  };
  fund(book, newEntry(input, 'credit'), payee.lot);
  return paid;
}

const insufficient = (availableMicros: Micros) =>
  ({ ok: false, reason: 'insufficient_balance', availableMicros }) as const;
const conflict = { ok: false, reason: 'idempotency_conflict' } as const;

function hold(book: Book, op: Extract<LedgerOp, { op: 'hold' }>): HoldOutcome {
  const existing = book.entry(op.id);
  if (existing) {
    const same = isSameRequest(
      existing,
      { kind: 'hold', accountId: op.accountId, amountMicros: op.amountMicros },
      null,
    );
    return same ? { ok: true, hold: toHold(existing), replayed: true } : conflict;
  }
  const available = book.balance(op.accountId)?.available ?? 0n;
  if (available < op.amountMicros) return insufficient(available);
  const e = newEntry(op, 'hold', {
    status: 'pending',
    postedMicros: null,
    expiresAtMs: op.expiresAtMs,
    postedAtMs: null,
  });
  book.insertEntry(e);
  book.moveBalance(op.accountId, -op.amountMicros, op.amountMicros);
  return { ok: true, hold: toHold(e), replayed: false };
}

function settle(book: Book, op: Extract<LedgerOp, { op: 'settle' }>, totals: BatchTotals): SettleOutcome {
  const decision = decideSettle(book.entry(op.holdId), op.amountMicros, op.nowMs);
  if (decision.act !== 'post') return notActing(book, decision, op.nowMs);
  const e = decision.entry;
  const posted = cappedAt(op.amountMicros, e.amountMicros);
  const plan = posted > 0n ? planConsumption(e.accountId, book.spendableLots(e.accountId), posted) : [];
  const settled: Entry = {
    ...e,
    status: 'posted',
    postedMicros: posted,
    spendMicros: posted,
    resolvedAtMs: op.nowMs,
    postedAtMs: op.nowMs,
    allocations: plan,
  };
  const usage = op.usage === null ? null : usageRecord(op.usage, e.accountId, e.id, posted, plan);
  if (usage !== null) written(book, totals, usage);
  book.updateEntry(settled);
  book.moveBalance(e.accountId, e.amountMicros - posted, -e.amountMicros);
  book.applyPlan(e.id, plan);
  totals.add(SYSTEM_ACCOUNTS.revenue, posted);
  postLoss(book, totals, e.id, op.amountMicros - posted, op.nowMs);
  return { ok: true, hold: toHold(settled), replayed: false, lossMicros: op.amountMicros - posted, usage };
}

function capture(book: Book, op: Extract<LedgerOp, { op: 'capture' }>, totals: BatchTotals): CaptureOutcome {
  const existing = book.entry(op.id);
  if (existing)
    return replayTransfer(book, existing, { kind: 'capture', holdId: op.holdId, amountMicros: op.amountMicros });
  const target = book.entry(op.holdId);
  // The account charged is the hold's, known only here: a payee naming it is the caller's bug, as for a debit.
  if (op.payee !== null && target?.kind === 'hold') assertPayee(op.payee, target.accountId);
  const decision = decidePending(target, op.nowMs);
  if (decision.act !== 'use') return notActing(book, decision, op.nowMs);
  const held = decision.entry;
  const posted = cappedAt(cappedAt(op.amountMicros, op.capMicros), held.amountMicros);
  const plan = posted > 0n ? planConsumption(held.accountId, book.spendableLots(held.accountId), posted) : [];
  const input = {
    id: op.id,
    accountId: held.accountId,
    amountMicros: op.amountMicros,
    nowMs: op.nowMs,
    memo: `captured from ${held.id}`,
  };
  const e = newEntry(input, 'capture', {
    postedMicros: posted,
    spendMicros: posted,
    holdId: held.id,
    allocations: plan,
  });
  const usage = op.usage === null ? null : usageRecord(op.usage, held.accountId, e.id, posted, plan);
  if (usage !== null) written(book, totals, usage);
  book.insertEntry(e);
  book.updateEntry({ ...held, amountMicros: held.amountMicros - posted });
  book.moveBalance(held.accountId, 0n, -posted);
  book.applyPlan(e.id, plan);
  // As for a debit: the payee's share of what was posted comes out of what revenue receives (README.md "Payouts").
  const paid = payOut(book, e.id, op.payee, posted, op.nowMs);
  totals.add(SYSTEM_ACCOUNTS.revenue, posted - paid);
  postLoss(book, totals, e.id, op.amountMicros - posted, op.nowMs);
  return {
    ok: true,
    transfer: toTransfer({ ...e, kind: 'capture' }),
    replayed: false,
    lossMicros: op.amountMicros - posted,
    usage,
  };
}

function release(book: Book, op: Extract<LedgerOp, { op: 'release' }>): ReleaseOutcome {
  const decision = decideRelease(book.entry(op.holdId), op.nowMs);
  if (decision.act !== 'void') return notActing(book, decision, op.nowMs);
  return { ok: true, hold: toHold(resolve(book, decision.entry, 'voided', op.nowMs)), replayed: false };
}

function extend(book: Book, op: Extract<LedgerOp, { op: 'extend' }>): ExtendOutcome {
  const decision = decidePending(book.entry(op.holdId), op.nowMs);
  if (decision.act !== 'use') return notActing(book, decision, op.nowMs);
  const e = decision.entry;
  // Only ever later: a late or repeated extension never shortens a hold another call extended further.
  const extended: Entry = { ...e, expiresAtMs: Math.max(e.expiresAtMs ?? op.expiresAtMs, op.expiresAtMs) };
  book.updateEntry(extended);
  return { ok: true, hold: toHold(extended) };
}

function debit(book: Book, op: Extract<LedgerOp, { op: 'debit' }>, totals: BatchTotals): TransferOutcome {
  const existing = book.entry(op.id);
  if (existing)
    return replayTransfer(book, existing, { kind: 'debit', accountId: op.accountId, amountMicros: op.amountMicros });
  const available = book.balance(op.accountId)?.available ?? 0n;
  if (available < op.amountMicros && !op.allowShortfall) return insufficient(available);
  const taken = available < op.amountMicros ? available : op.amountMicros;
  const plan = taken > 0n ? planConsumption(op.accountId, book.spendableLots(op.accountId), taken) : [];
  const e = newEntry(op, 'debit', { postedMicros: taken, spendMicros: taken, allocations: plan });
  const usage = op.usage === null ? null : usageRecord(op.usage, op.accountId, e.id, taken, plan);
  if (usage !== null) written(book, totals, usage);
  book.insertEntry(e);
  book.moveBalance(op.accountId, -taken, 0n);
  book.applyPlan(e.id, plan);
  // A payee's share comes out of what revenue receives, never out of deposits (README.md "Payouts").
  const paid = payOut(book, e.id, op.payee, taken, op.nowMs);
  totals.add(SYSTEM_ACCOUNTS.revenue, taken - paid);
  postLoss(book, totals, e.id, op.amountMicros - taken, op.nowMs);
  return {
    ok: true,
    transfer: toTransfer({ ...e, kind: 'debit' }),
    replayed: false,
    lossMicros: op.amountMicros - taken,
    usage,
  };
}

function credit(book: Book, op: Extract<LedgerOp, { op: 'credit' }>, totals: BatchTotals): TransferOutcome {
  const existing = book.entry(op.id);
  if (existing)
    return replayTransfer(book, existing, {
      kind: 'credit',
      accountId: op.accountId,
      amountMicros: op.amountMicros,
      lot: op.lot,
    });
  const e = newEntry(op, 'credit');
  fund(book, e, op.lot);
  totals.add(SYSTEM_ACCOUNTS.deposits, -op.amountMicros);
  return { ok: true, transfer: toTransfer({ ...e, kind: 'credit' }), replayed: false, lossMicros: 0n, usage: null };
}

function refund(book: Book, op: Extract<LedgerOp, { op: 'refund' }>, totals: BatchTotals): TransferOutcome {
  const target = book.entry(op.refundOf);
  if (!isRefundable(target)) return { ok: false, reason: 'transfer_not_found' };
  const existing = book.entry(op.id);
  if (existing)
    return replayTransfer(book, existing, { kind: 'refund', refundOf: target.id, amountMicros: op.amountMicros });
  if (op.amountMicros > refundableMicros(target)) return { ok: false, reason: 'exceeds_refundable' };
  const { consumed, earlier } = book.refundAllocations(target.id);
  const plan = planRestore(consumed, earlier, op.amountMicros);
  const e = newEntry({ ...op, accountId: target.accountId }, 'refund', {
    refundOf: target.id,
    spendMicros: -op.amountMicros,
    allocations: plan,
  });
  book.insertEntry(e);
  book.updateEntry({ ...target, refundedMicros: target.refundedMicros + op.amountMicros });
  book.moveBalance(target.accountId, op.amountMicros, 0n);
  book.applyPlan(e.id, plan);
  totals.add(SYSTEM_ACCOUNTS.revenue, -op.amountMicros);
  return { ok: true, transfer: toTransfer({ ...e, kind: 'refund' }), replayed: false, lossMicros: 0n, usage: null };
}

/** The answer to a transfer id seen before: its original outcome, or a conflict (the answers transfers and captures share). */
function replayTransfer(
  book: Book,
  existing: Entry,
  key: ReplayKey,
): Extract<TransferOutcome & CaptureOutcome, { ok: true }> | typeof conflict {
  const lot = key.kind === 'credit' && existing.kind === 'credit' ? book.lotSpec(existing.id) : null;
  if (!isTransfer(existing) || !isSameRequest(existing, key, lot)) return conflict;
  return { ok: true, transfer: toTransfer(existing), replayed: true, lossMicros: 0n, usage: null };
}

/** A decision not to act on a hold: its answer, or, for a hold found due, the expiry done on the spot (README.md). */
function notActing<O>(
  book: Book,
  decision: { act: 'answer'; outcome: O } | { act: 'expire'; entry: Entry },
  nowMs: number,
): O | ReturnType<typeof expiredAnswer> {
  if (decision.act === 'answer') return decision.outcome;
  resolve(book, decision.entry, 'expired', nowMs);
  return expiredAnswer();
}

/** Ends a pending hold without posting: all of it goes back to available. */
function resolve(book: Book, e: Entry, status: 'voided' | 'expired', nowMs: number): Entry {
  const resolved: Entry = { ...e, status, resolvedAtMs: nowMs };
  book.updateEntry(resolved);
  book.moveBalance(e.accountId, e.amountMicros, -e.amountMicros);
  return resolved;
}

/**
 * The ledger port: one USD balance per account, moved only by transfers (DESIGN.md 4; read README.md here).
 *
 * Amounts are integer micro-USD (`bigint`). A user's available balance never goes negative. Transfer ids are
 * idempotency keys: the same id with the same request replays the original outcome, a different request is a
 * conflict. Holds (pending transfers) reserve money; settling posts at most the held amount (anything asked
 * beyond it is posted as the platform's loss) and releases the rest; an unsettled hold expires. A capture posts
 * part of a pending hold and leaves the rest reserved (a hold drawn on by many charges: README.md "Captures").
 *
 * A charge carries its usage line, written in the charge's own transaction (exactly once, SPEC 2.6). Top-ups are
 * lots carrying the RUB/USD rate they were paid at; posted spend consumes lots oldest first and records which
 * lots paid (allocations), so a charge's ruble cost is exact and a refund restores those lots.
 */
import type { UsageRecord } from '../usage-log/index.js';

export type Micros = bigint;

/** Well-known non-user accounts; they may go negative (deposits is the source of all money). */
export const SYSTEM_ACCOUNTS = {
  revenue: 'system:revenue',
  deposits: 'system:deposits',
  /** Pays what a request cost beyond its hold (README.md "A hold is a ceiling"). */
  losses: 'system:losses',
} as const;

export type HoldStatus = 'pending' | 'posted' | 'voided' | 'expired';

export interface Allocation {
  lotId: string;
  /** Positive when a lot paid for a charge; negative when a refund gave money back to it. */
  amountMicros: Micros;
  /** RUB per USD of that lot, × 1e6. */
  fxRateRubMicro: bigint;
}

export interface Balance {
  accountId: string;
  /** Spendable now. Never negative for a user account. */
  availableMicros: Micros;
  /** Reserved by pending holds. */
  heldMicros: Micros;
}

/** The account's balance: all it has not spent, reserved or not (README.md "Accounts"). */
export const balanceMicros = (b: Balance): Micros => b.availableMicros + b.heldMicros;

export interface Hold {
  id: string;
  accountId: string;
  /** What is reserved: the amount asked, less what captures have posted from it since. */
  amountMicros: Micros;
  status: HoldStatus;
  /** What was posted when settled (≤ amountMicros); null until then. */
  postedMicros: Micros | null;
  createdAtMs: number;
  expiresAtMs: number;
  resolvedAtMs: number | null;
  /** The lots that paid for the posted amount (empty unless posted). */
  allocations: Allocation[];
}

export type TransferKind = 'debit' | 'capture' | 'credit' | 'refund' | 'loss';

/** A posted movement other than a hold: a debit, a capture from a hold, a top-up credit, a refund of an earlier charge, or a loss. */
export interface Transfer {
  id: string;
  accountId: string;
  kind: TransferKind;
  /** What was asked for. */
  amountMicros: Micros;
  /** What moved: the amount, or less for a debit that allowed a shortfall. */
  postedMicros: Micros;
  createdAtMs: number;
  /** For refunds: the charge being refunded. */
  refundOf: string | null;
  /** For captures: the hold the money was taken from. */
  holdId: string | null;
  allocations: Allocation[];
  memo: string;
}

export interface Lot {
  id: string;
  accountId: string;
  currency: 'USD' | 'RUB';
  /** What the lot added to the balance, and what of it is left (FIFO spend lowers it, refunds raise it). */
  amountMicros: Micros;
  remainingMicros: Micros;
  fxRateRubMicro: bigint;
  createdAtMs: number;
}

export interface LotSpec {
  currency: 'USD' | 'RUB';
  /** RUB per USD × 1e6: the rate this money was paid at (for USD top-ups, the market rate of that day). */
  fxRateRubMicro: bigint;
}

/**
 * The usage line of a charge (SPEC 2.6), as the caller knows it. The ledger completes it from the posting:
 * account, `costMicros` (what was posted), `transferId`, and for ruble-billed lines `costRubMicro` and
 * `fxRateRubMicro` from the lots that paid.
 */
export type UsageLine = Omit<
  UsageRecord,
  'accountId' | 'costMicros' | 'transferId' | 'costRubMicro' | 'fxRateRubMicro'
>;

/** What a posting charged: the amount, what the platform absorbed beyond it, and the usage line written. */
export interface Posting {
  /** Asked − posted, posted as a `loss` transfer; 0 when the caller paid everything. */
  lossMicros: Micros;
  /** The usage line as stored; null when none was given, or on a replay (it was written the first time). */
  usage: UsageRecord | null;
}

export type HoldOutcome =
  | { ok: true; hold: Hold; replayed: boolean }
  | { ok: false; reason: 'insufficient_balance'; availableMicros: Micros }
  | { ok: false; reason: 'idempotency_conflict' };

export type SettleOutcome =
  | ({ ok: true; hold: Hold; replayed: boolean } & Posting)
  | { ok: false; reason: 'hold_not_found' | 'idempotency_conflict' }
  | { ok: false; reason: 'hold_not_pending'; status: HoldStatus };

export type ReleaseOutcome =
  | { ok: true; hold: Hold; replayed: boolean }
  | { ok: false; reason: 'hold_not_found' }
  | { ok: false; reason: 'hold_not_pending'; status: HoldStatus };

export type ExtendOutcome =
  | { ok: true; hold: Hold }
  | { ok: false; reason: 'hold_not_found' }
  | { ok: false; reason: 'hold_not_pending'; status: HoldStatus };

export type CaptureOutcome =
  | ({ ok: true; transfer: Transfer; replayed: boolean } & Posting)
  | { ok: false; reason: 'hold_not_found' | 'idempotency_conflict' }
  | { ok: false; reason: 'hold_not_pending'; status: HoldStatus };

export type TransferOutcome =
  | ({ ok: true; transfer: Transfer; replayed: boolean } & Posting)
  | { ok: false; reason: 'insufficient_balance'; availableMicros: Micros }
  | { ok: false; reason: 'idempotency_conflict' | 'transfer_not_found' | 'exceeds_refundable' };

export interface HoldInput {
  id: string;
  accountId: string;
  amountMicros: Micros;
  nowMs: number;
  ttlMs: number;
}

export interface SettleInput {
  holdId: string;
  /** What the work cost; more than the hold is capped at it and the rest is the platform's loss. */
  amountMicros: Micros;
  nowMs: number;
  usage?: UsageLine;
}

export interface CaptureInput {
  /** The capture's own id (its idempotency key); the hold stays pending with what is left. */
  id: string;
  holdId: string;
  /** What the work cost; more than `capMicros` (or than the hold has left) is the platform's loss. */
  amountMicros: Micros;
  /** The most this capture may take: the share of the hold the work was allowed. */
  capMicros: Micros;
  nowMs: number;
  usage?: UsageLine;
  /**
   * A provider's share of this charge, credited to their balance in the same transaction (a rental paid ahead,
   * SPEC 1.6); at most what the capture posted. Naming the hold's own account rejects the call with a `RangeError`.
   */
  payee?: Payee;
  /**
   * Called once the capture is in the database's hands, before its outcome is known: on PostgreSQL, once its
   * statement is written to the connection, which the server commits even if this process dies right after
   * (README.md "Handed off"). Engines inside the process never call it: their outcome comes as soon.
   */
  onHandedOff?: () => void;
}

export interface DebitInput {
  id: string;
  accountId: string;
  amountMicros: Micros;
  nowMs: number;
  memo?: string;
  usage?: UsageLine;
  /** Post what is available when it is less than the amount, the rest as a loss (default: refuse). */
  allowShortfall?: boolean;
  /** A provider's share of this charge, credited to their balance in the same transaction (GPU rentals, SPEC 1.6). */
  payee?: Payee;
}

/**
 * Who is paid out of a debit or a capture (README.md "Payouts"): at most what that charge took is credited to
 * `accountId` as the entry `earning:<charge id>` with a lot of `lot`, and revenue keeps the rest.
 */
export interface Payee {
  accountId: string;
  amountMicros: Micros;
  lot: LotSpec;
}

export interface CreditInput {
  id: string;
  accountId: string;
  amountMicros: Micros;
  lot: LotSpec;
  nowMs: number;
  memo?: string;
}

export interface RefundInput {
  id: string;
  refundOf: string;
  amountMicros: Micros;
  nowMs: number;
  memo?: string;
}

export interface Ledger {
  /** Reserves `amount` (SPEC 4.2 pre-flight). Fails without reserving anything when the balance is short. */
  hold(input: HoldInput): Promise<HoldOutcome>;
  /** Posts min(amount, hold) to revenue, consuming lots FIFO, writes the usage line, releases the remainder. */
  settle(input: SettleInput): Promise<SettleOutcome>;
  /**
   * Posts min(amount, cap, what the hold has left) from a pending hold, consuming lots FIFO, with the usage line;
   * the hold stays pending with the rest. A payee's share of what was posted is credited with it.
   */
  capture(input: CaptureInput): Promise<CaptureOutcome>;
  /** Voids a pending hold: everything goes back to available. */
  release(input: { holdId: string; nowMs: number }): Promise<ReleaseOutcome>;
  /** Keeps a pending hold alive until at least `expiresAtMs` (a long stream, DESIGN.md 4). */
  extend(input: { holdId: string; expiresAtMs: number; nowMs: number }): Promise<ExtendOutcome>;
  /** Expires pending holds whose time is up (the sweeper calls this); returns how many. */
  expireHolds(nowMs: number): Promise<number>;

  /** A direct posted charge (no hold), conditional on the available balance; a payee's share is credited with it. */
  debit(input: DebitInput): Promise<TransferOutcome>;
  /** A top-up: adds money from deposits and records it as a lot with its rate. */
  credit(input: CreditInput): Promise<TransferOutcome>;
  /**
   * Gives back up to what is left refundable of a posted debit, capture or settled hold, restoring the lots that paid
   * for it, most recently consumed first (so FIFO order is as if that spend never happened).
   */
  refund(input: RefundInput): Promise<TransferOutcome>;

  getBalance(accountId: string): Promise<Balance>;
  getHold(holdId: string): Promise<Hold | null>;
  getTransfer(id: string): Promise<Transfer | null>;
  /** Lots with money left, in spending order (oldest first). */
  listLots(accountId: string): Promise<Lot[]>;
  /** Σ posted spend (settled holds + captures + debits − refunds) of an account in [fromMs, toMs): what usage must add up to. */
  postedSpend(accountId: string, range?: { fromMs?: number; toMs?: number }): Promise<Micros>;
  /** Σ of every balance, system accounts included: 0 when every posted transfer balances. */
  sumOfAllBalances(): Promise<Micros>;
  /** Waits for every call made so far to be written (the ledger's caller owns the database and closes it). */
  drain(): Promise<void>;
}

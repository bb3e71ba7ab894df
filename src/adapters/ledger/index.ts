/**
 * The ledger port: one USD balance per account, moved only by transfers (DESIGN.md 4; read README.md here).
 *
 * Amounts are integer micro-USD (`bigint`). A user's available balance never goes negative: every write that
 * lowers it is conditional on the amount being there, in the same statement. Transfer ids are idempotency
 * keys: the same id with the same amount replays the original outcome, with a different amount it is a
 * conflict. Holds (pending transfers) reserve money; settling posts at most the held amount and releases the
 * rest; an unsettled hold expires and releases everything.
 *
 * Top-ups are lots carrying the RUB/USD rate they were paid at. Posted spend consumes lots oldest first and
 * records which lots paid (allocations), so a charge's ruble cost is exact and a refund restores those lots.
 */

export type Micros = bigint;

/** Well-known non-user accounts; they may go negative (deposits is the source of all money). */
export const SYSTEM_ACCOUNTS = {
  revenue: 'system:revenue',
  deposits: 'system:deposits',
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

export interface Hold {
  id: string;
  accountId: string;
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

export type TransferKind = 'debit' | 'credit' | 'refund';

/** A posted movement other than a hold: a direct debit, a top-up credit, or a refund of an earlier debit. */
export interface Transfer {
  id: string;
  accountId: string;
  kind: TransferKind;
  amountMicros: Micros;
  createdAtMs: number;
  /** For refunds: the debit or settled hold being refunded. */
  refundOf: string | null;
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

export type HoldOutcome =
  | { ok: true; hold: Hold; replayed: boolean }
  | { ok: false; reason: 'insufficient_balance'; availableMicros: Micros }
  | { ok: false; reason: 'idempotency_conflict' };

export type SettleOutcome =
  | { ok: true; hold: Hold; replayed: boolean }
  | { ok: false; reason: 'hold_not_found' | 'exceeds_hold' | 'idempotency_conflict' }
  | { ok: false; reason: 'hold_not_pending'; status: HoldStatus };

export type ReleaseOutcome =
  | { ok: true; hold: Hold; replayed: boolean }
  | { ok: false; reason: 'hold_not_found' }
  | { ok: false; reason: 'hold_not_pending'; status: HoldStatus };

export type TransferOutcome =
  | { ok: true; transfer: Transfer; replayed: boolean }
  | { ok: false; reason: 'insufficient_balance'; availableMicros: Micros }
  | { ok: false; reason: 'idempotency_conflict' | 'transfer_not_found' | 'exceeds_refundable' };

export interface Ledger {
  /** Reserves `amount` (SPEC 4.2 pre-flight). Fails without reserving anything when the balance is short. */
  hold(input: { id: string; accountId: string; amountMicros: Micros; nowMs: number; ttlMs: number }): Promise<HoldOutcome>;
  /** Posts `amount` ≤ the hold to revenue, consuming lots FIFO, and releases the remainder. */
  settle(input: { holdId: string; amountMicros: Micros; nowMs: number }): Promise<SettleOutcome>;
  /** Voids a pending hold: everything goes back to available. */
  release(input: { holdId: string; nowMs: number }): Promise<ReleaseOutcome>;
  /** Expires pending holds whose time is up (the sweeper calls this); returns how many. */
  expireHolds(nowMs: number): Promise<number>;

  /** A direct posted charge (no hold), conditional on the available balance. */
  debit(input: { id: string; accountId: string; amountMicros: Micros; nowMs: number; memo?: string }): Promise<TransferOutcome>;
  /** A top-up: adds money from deposits and records it as a lot with its rate. */
  credit(input: { id: string; accountId: string; amountMicros: Micros; lot: LotSpec; nowMs: number; memo?: string }): Promise<TransferOutcome>;
  /**
   * Gives back up to what is left refundable of a posted debit or settled hold, restoring the lots that paid
   * for it, most recently consumed first (so FIFO order is as if that spend never happened).
   */
  refund(input: { id: string; refundOf: string; amountMicros: Micros; nowMs: number; memo?: string }): Promise<TransferOutcome>;

  getBalance(accountId: string): Promise<Balance>;
  getHold(holdId: string): Promise<Hold | null>;
  getTransfer(id: string): Promise<Transfer | null>;
  /** Lots with money left, in spending order (oldest first). */
  listLots(accountId: string): Promise<Lot[]>;
  /** Σ posted spend (settled holds + debits − refunds) of an account in [fromMs, toMs): what usage must add up to. */
  postedSpend(accountId: string, range?: { fromMs?: number; toMs?: number }): Promise<Micros>;
  /** Σ of every balance, system accounts included: 0 when every posted transfer balances. */
  sumOfAllBalances(): Promise<Micros>;
}

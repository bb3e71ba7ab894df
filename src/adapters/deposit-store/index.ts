/**
 * The deposit-store port (SPEC 1.10, issue 27): every deposit an account makes, whichever rail, and the TRON
 * addresses handed out for them. Money itself is in the ledger; a deposit records what was asked, what the rail
 * says, and which ledger transfer credited it (`dep:<id>`, so a credit is made once however often it is retried).
 *
 * Unique keys make every rail's event land once: (processor, processor_ref) for a payment or a chain transfer
 * (`<txid>:<log index>`), one address per account, one account per address. Every change is a compare-and-set on the
 * status it expects; amounts are bigint.
 */

export type DepositMethod = 'card' | 'sbp' | 'usdt_trc20';
export type Processor = 'stripe' | 'yookassa' | 'tron';
export type DepositStatus =
  | 'pending'
  | 'awaiting_transfer'
  | 'credited'
  | 'failed'
  | 'expired'
  | 'refunded'
  | 'partially_refunded';

export interface DepositRecord {
  /** `dep_…`. */
  id: string;
  accountId: string;
  method: DepositMethod;
  processor: Processor;
  /** The rail's id: a Checkout Session, a YooKassa payment, `<txid>:<log index>`; null until the rail gave one. */
  processorRef: string | null;
  /** The rail's id that refunds and disputes name (a Stripe payment intent); null when none. */
  chargeRef: string | null;
  status: DepositStatus;
  /** What was asked (card: cents, SBP: kopecks) or received (USDT: base units); null when not known yet. */
  amountMinor: bigint | null;
  currency: 'usd' | 'rub' | 'usdt';
  /** What the ledger credited, micro-USD; null until credited. */
  creditedMicros: bigint | null;
  /** RUB per USD × 1e6 of a ruble deposit's lot (SPEC 4.3); null otherwise. */
  fxRateRubMicro: bigint | null;
  /** What refunds and lost disputes took back, micro-USD. */
  refundedMicros: bigint;
  checkoutUrl: string | null;
  address: string | null;
  txId: string | null;
  createdAtMs: number;
  updatedAtMs: number;
  creditedAtMs: number | null;
}

export type NewDeposit = Omit<
  DepositRecord,
  'creditedMicros' | 'refundedMicros' | 'updatedAtMs' | 'creditedAtMs' | 'chargeRef' | 'fxRateRubMicro'
>;

export type CreateDepositOutcome = { ok: true; deposit: DepositRecord } | { ok: false; reason: 'ref_taken' };

export interface Credited {
  /** For a USDT transfer claiming an address's `awaiting_transfer` deposit: the transfer it was paid by. */
  transfer?: { processorRef: string; txId: string };
  creditedMicros: bigint;
  amountMinor: bigint;
  fxRateRubMicro: bigint | null;
  chargeRef: string | null;
  atMs: number;
}

export interface DepositAddress {
  accountId: string;
  index: number;
  address: string;
}

export interface DepositStore {
  /** 'ref_taken' when a deposit with the same (processor, processorRef) exists: that event was taken already. */
  create(deposit: NewDeposit): Promise<CreateDepositOutcome>;
  get(id: string): Promise<DepositRecord | null>;
  findByRef(processor: Processor, processorRef: string): Promise<DepositRecord | null>;
  findByChargeRef(processor: Processor, chargeRef: string): Promise<DepositRecord | null>;
  /** Newest first. */
  list(accountId: string, page: { limit: number; offset: number }): Promise<DepositRecord[]>;
  /** Every deposit in id order, `limit` at a time after `afterId` (null: from the start), for reconciliation. */
  scan(afterId: string | null, limit: number): Promise<DepositRecord[]>;
  /** The processor's checkout for a pending deposit; false when it has one already or is not pending. */
  attachCheckout(id: string, checkout: { processorRef: string; checkoutUrl: string }, atMs: number): Promise<boolean>;
  /**
   * pending or awaiting_transfer → credited, with what the ledger credited; false when it was not in either, or
   * when `credited.transfer` names a transfer another deposit holds.
   */
  markCredited(id: string, credited: Credited): Promise<boolean>;
  /** The account's oldest USDT deposit still waiting for a transfer, if any. */
  oldestAwaiting(accountId: string): Promise<DepositRecord | null>;
  /**
   * Card and SBP deposits still pending that were last looked at before `beforeMs`, least recently first: the ones
   * whose webhook may have been lost, for a check with their processor.
   */
  pendingToCheck(beforeMs: number, limit: number): Promise<DepositRecord[]>;
  /** Records that a pending deposit was looked at, so the next check takes others first. */
  touch(id: string, atMs: number): Promise<void>;
  /** pending → failed or expired; false when it was not pending. */
  markClosed(id: string, status: 'failed' | 'expired', atMs: number): Promise<boolean>;
  /** Adds to what was taken back and sets the status to (partially_)refunded; at most the credited amount. */
  addRefunded(id: string, micros: bigint, atMs: number): Promise<DepositRecord | null>;

  /** The account's TRON address, drawing the next derivation index for a first one (`derive` makes the address). */
  addressFor(accountId: string, derive: (index: number) => string): Promise<DepositAddress>;
  findAddress(address: string): Promise<DepositAddress | null>;
  /** The last block the chain watcher finished, or null before its first. */
  cursor(chain: string): Promise<number | null>;
  setCursor(chain: string, blockNumber: number): Promise<void>;
}

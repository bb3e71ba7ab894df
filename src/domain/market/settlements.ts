/**
 * Record-then-post settlement, shared by rentals and volumes (DESIGN.md 3 "Rentals"). What a record owes beyond what
 * it was charged is first recorded on it by compare-and-set (the settlement's number and amount), then posted to the
 * ledger under `<kind>:<id>:<number>`; a recorded settlement still unposted is posted first, under its own id. A
 * process that dies in between leaves the settlement to be posted again under the same id, never twice.
 */
import type { Ledger, LotSpec, Micros } from '../../adapters/ledger/index.js';

/** What a settled record keeps about its settlements. */
export interface Settleable {
  settleSeq: number;
  chargedMicros: Micros;
  pendingChargeMicros: Micros;
}

export interface SettlementSteps<T extends Settleable> {
  /** Names the record in errors. */
  what: string;
  /** What the record owes in all, from its own fields. */
  owed(record: T): Micros;
  /** Compare-and-set: settlement `seq` recorded as pending `chargeMicros`, `owedMicros` charged in all; null when stale. */
  record(current: T, seq: number, owedMicros: Micros, chargeMicros: Micros): Promise<T | null>;
  /** Posts the pending charge of settlement `settleSeq`; answers the provider's share of what was taken. */
  post(current: T): Promise<Micros>;
  /** Compare-and-set: the pending charge cleared, the provider's share kept; null when stale. */
  clear(current: T, providerMicros: Micros): Promise<T | null>;
  reread(current: T): Promise<T>;
}

/** Each settlement takes a few steps (record, post, clear), each of which may lose to a concurrent one. */
const ATTEMPTS = 24;

/**
 * Never records a settlement while one is pending: whoever sees a pending one posts it (under its own id, so
 * posting it twice is a no-op) and clears it first, so a settlement recorded by another process is never overwritten.
 */
export async function settleRecorded<T extends Settleable>(current: T, steps: SettlementSteps<T>): Promise<T> {
  let record = current;
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    if (record.pendingChargeMicros !== 0n) {
      const providerMicros = await steps.post(record);
      record = (await steps.clear(record, providerMicros)) ?? (await steps.reread(record));
      continue;
    }
    const owed = steps.owed(record);
    if (owed <= record.chargedMicros) return record;
    record =
      (await steps.record(record, record.settleSeq + 1, owed, owed - record.chargedMicros)) ??
      (await steps.reread(record));
  }
  throw new Error(`${steps.what}: settlement kept losing to concurrent changes`);
}

export interface Charge {
  /** The transfer id: `<kind>:<id>:<settlement number>`. */
  id: string;
  accountId: string;
  /** A hold paying for it (a rental's term), or null to debit the balance. */
  holdId: string | null;
  amountMicros: Micros;
  /** What the record was charged in all before this settlement: the fee is taken on the running total. */
  chargedBeforeMicros: Micros;
  nowMs: number;
  memo: string;
  /** The provider paid their share of it (SPEC 1.6), or null when the platform keeps it all. */
  provider: { accountId: string; feeBp: number; lot: LotSpec } | null;
}

/** The platform's fee on a record's whole charge so far, rounded down once on the total. */
const feeOn = (totalMicros: Micros, feeBp: number): Micros => (totalMicros * BigInt(feeBp)) / 10_000n;

/**
 * The provider's share of one settlement: the charge less the fee's growth, fee(total after) − fee(total before).
 * The fee is rounded on the running total, never per settlement, so however finely a record is settled (every sweep,
 * every read) the platform's fees add up to the fee on what was charged in all (issue 23 item 10: fees on totals).
 */
export function providerShare(feeBp: number, chargedBeforeMicros: Micros, chargeMicros: Micros): Micros {
  return chargeMicros - (feeOn(chargedBeforeMicros + chargeMicros, feeBp) - feeOn(chargedBeforeMicros, feeBp));
}

/**
 * Posts a settlement's charge with the provider's share in the same ledger transaction; answers that share. Out of
 * the hold when there is one and it still stands; otherwise debited from what the balance has, the rest the
 * platform's loss (a balance never goes negative).
 */
export async function postCharge(ledger: Ledger, charge: Charge): Promise<Micros> {
  const { id, amountMicros, nowMs, provider } = charge;
  const payee =
    provider === null
      ? undefined
      : {
          accountId: provider.accountId,
          amountMicros: providerShare(provider.feeBp, charge.chargedBeforeMicros, amountMicros),
          lot: provider.lot,
        };
  // The payee gets its share of what was taken, which is less than asked only after a shortfall.
  const share = (taken: Micros) => (payee === undefined ? 0n : payee.amountMicros < taken ? payee.amountMicros : taken);
  if (charge.holdId !== null) {
    const captured = await ledger.capture({
      id,
      holdId: charge.holdId,
      amountMicros,
      capMicros: amountMicros,
      nowMs,
      ...(payee === undefined ? {} : { payee }),
    });
    if (captured.ok) return share(captured.transfer.postedMicros);
  }
  const debited = await ledger.debit({
    id,
    accountId: charge.accountId,
    amountMicros,
    nowMs,
    memo: charge.memo,
    allowShortfall: true,
    ...(payee === undefined ? {} : { payee }),
  });
  if (!debited.ok) throw new Error(`settlement ${id} refused: ${debited.reason}`);
  return share(debited.transfer.postedMicros);
}

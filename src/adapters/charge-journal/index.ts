/**
 * The charge journal port (DESIGN.md 4: "a settle that fails is retried from a durable record until it lands").
 * When the ledger cannot take a charge for work already delivered, the charge is written here, durably, and
 * retried (src/domain/billing/charge-retrier.ts) until the ledger accepts it. Posting is idempotent (by the hold id, or by the
 * capture id `charge:<request id>`), so a charge retried after it did land (a reply lost on the way back) is answered
 * as a replay and never paid twice.
 */
import type { Micros, UsageLine } from '../ledger/index.js';

/** Everything needed to post one charge again, later, from another process if need be. */
export interface PendingCharge {
  /** One charge per request: the journal's key. */
  requestId: string;
  holdId: string;
  accountId: string;
  /** What the work cost (the ledger caps it at the hold, or at `capMicros`). */
  costMicros: Micros;
  /** Set when the request reserved from a lease (src/domain/billing/billing-leases.ts): a capture of at most this much from the hold. */
  capMicros?: Micros;
  usage: UsageLine;
}

export interface ChargeJournal {
  /** Records a charge; durable once it resolves. Recording the same request again replaces it. */
  put(charge: PendingCharge): Promise<void>;
  /** Every recorded charge, oldest first. */
  list(): Promise<PendingCharge[]>;
  /** Forgets a charge once it has landed; unknown ids are ignored. */
  remove(requestId: string): Promise<void>;
}

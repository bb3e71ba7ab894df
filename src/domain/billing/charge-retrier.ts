import type { ChargeJournal } from '../../adapters/charge-journal/index.js';
import type { Billing } from './billing.js';

/**
 * Posts the charges the journal holds (DESIGN.md 4: a settle that fails is retried from a durable record until
 * it lands, never only logged), oldest first; stops at the first one the ledger still cannot take, to try again
 * later. Returns how many landed.
 */
export async function retryJournaledCharges(journal: ChargeJournal, billing: Billing): Promise<number> {
  let landed = 0;
  for (const charge of await journal.list()) {
    await billing.post(charge);
    await journal.remove(charge.requestId);
    landed++;
  }
  return landed;
}

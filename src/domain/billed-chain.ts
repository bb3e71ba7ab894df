import type { Billing, Reservation } from './billing.js';
import type { Route } from './routing/route-table.js';
import { runChain, type ChainHooks, type ChainResult } from './routing/run-chain.js';

/**
 * Runs the upstream chain for a request whose money is reserved; if the chain fails, the reservation is
 * released before the error propagates, so a failed request never costs anything (SPEC 4.1.3, 4.6).
 */
export async function runReservedChain<T>(
  billing: Billing,
  reservation: Reservation,
  chain: readonly Route[],
  attempt: (route: Route) => Promise<T>,
  hooks: ChainHooks,
): Promise<ChainResult<T>> {
  try {
    return await runChain(chain, attempt, hooks);
  } catch (err) {
    await billing.release(reservation);
    throw err;
  }
}

import type { Route } from '../routing/route-table.js';
import { type ChainHooks, type ChainResult, runChain } from '../routing/run-chain.js';
import type { Billing, Reservation } from './billing.js';

/**
 * Work done for a request whose money is reserved: if it fails, the reservation is released before the error
 * propagates, so a failed request never costs anything (SPEC 4.1.3, 4.6).
 */
export async function releasingOnFailure<T>(
  billing: Pick<Billing, 'release'>,
  reservation: Reservation,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    await billing.release(reservation);
    throw err;
  }
}

/** The upstream chain of a request whose money is reserved; a chain that fails releases it. */
export function runReservedChain<T>(
  billing: Pick<Billing, 'release'>,
  reservation: Reservation,
  chain: readonly Route[],
  attempt: (route: Route) => Promise<T>,
  hooks: ChainHooks,
): Promise<ChainResult<T>> {
  return releasingOnFailure(billing, reservation, () => runChain(chain, attempt, hooks));
}

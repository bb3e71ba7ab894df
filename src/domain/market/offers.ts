/**
 * The marketplace search (SPEC 1.2): listed machines whose agent was heard from recently and that are still offered,
 * with enough free GPUs, filtered as the renter asks. Unknown filters never get this far: the contract refuses them.
 */
import type { MarketStore, OfferQuery, OfferRecord } from '../../adapters/market-store/index.js';

export type OfferFilters = Omit<OfferQuery, 'heardSinceMs' | 'nowMs'>;

export async function searchOffers(
  store: MarketStore,
  filters: OfferFilters,
  nowMs: number,
  offlineAfterMs: number,
): Promise<{ offers: OfferRecord[]; total: number }> {
  return store.searchOffers({ ...filters, heardSinceMs: nowMs - offlineAfterMs, nowMs });
}

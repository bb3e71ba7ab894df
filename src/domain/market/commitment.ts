/**
 * A term is a commitment (DESIGN.md 3 "Rentals: plans"; issue 23 item 8). A day, week or month plan is priced below
 * the minute plan because the renter commits to the term; a rental stopped or deleted early pays for the time
 * it ran at the minute price locked at creation, never more than the term's price, before the rest of the hold is
 * given back. Otherwise a month plan deleted after 39 seconds would be an hourly plan with a 30 % discount.
 * The provider's share follows the charge (./settlements.ts), so their earnings show the re-priced amount.
 *
 * Every stop re-prices, whatever its reason: a renter controls its container, so a container that exits is no
 * cheaper way out of the term than a stop (a machine going silent is no stop: its rental is `offline` and accrues
 * nothing). What was paid counts toward the term: a rental started again runs on until its term's running time is
 * used up, and pays nothing more until its pro rata charge catches up with what it paid; a term run to its end
 * costs its price either way.
 */
import type { InstanceRecord } from '../../adapters/market-store/index.js';
import { owedFor } from './plans.js';

type Commitment = Pick<InstanceRecord, 'pricingType' | 'unitPriceMicros' | 'gpuCount' | 'termMs' | 'minutePriceMicros'>;

/** What a rental that ran `runningMs` owes when it is stopped or deleted now. */
export function owedAtHalt(rental: Commitment, runningMs: number): bigint {
  const proRata = owedFor(rental, runningMs);
  if (rental.termMs === null) return proRata;
  const termPrice = owedFor(rental, rental.termMs);
  const atMinutePrice = owedFor(
    { pricingType: 'minute', unitPriceMicros: rental.minutePriceMicros, gpuCount: rental.gpuCount, termMs: null },
    runningMs,
  );
  const repriced = atMinutePrice < termPrice ? atMinutePrice : termPrice;
  return repriced > proRata ? repriced : proRata;
}

/**
 * DESIGN.md 3 "Balance runs out": a metered rental (minute, hour) starts only with an hour of runtime available for
 * it and for every other metered rental of the account its renter wants running, together: one balance is never
 * shown again and again for rental after rental. The new rental's hour is held while it is placed or started
 * (./balance-cover.ts), so parallel starts never share one balance. Term rentals hold their whole term instead.
 */
import type { MarketStore } from '../../adapters/market-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import { microsToUsd } from '../billing/money.js';
import type { CoverRule } from './balance-cover.js';
import { costOfRunning, type RentalTerms, START_RUNWAY_MS } from './plans.js';

/** An hour of a plan (a rental's record carries its plan's terms). */
const hourOf = (terms: RentalTerms) => costOfRunning(terms, START_RUNWAY_MS);

/** The rule starting a metered rental of `terms` must meet. */
export function runwayRule(store: MarketStore, accountId: string, terms: RentalTerms): CoverRule {
  return {
    accountId,
    ownMicros: hourOf(terms),
    existingMicros: async () =>
      (await store.wantedRunning(accountId)).filter((i) => i.termMs === null).reduce((sum, i) => sum + hourOf(i), 0n),
    refuse: (need, available) =>
      new ApiError(
        'insufficient_balance',
        `Starting this rental needs an hour of it and of the account's other metered rentals ($${microsToUsd(need)}) available; the balance has $${microsToUsd(available)}`,
      ),
  };
}

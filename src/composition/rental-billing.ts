/**
 * The billing of GPU rentals and volumes, composed from the configuration: one place for the serving process
 * (composition/market.ts) and the admin CLI (a top-up settles the account's rentals first, SPEC 4.5).
 */
import type { Ledger } from '../adapters/ledger/index.js';
import type { MarketStore } from '../adapters/market-store/index.js';
import type { Config } from '../config.js';
import { usdToMicros } from '../domain/billing/money.js';
import { Rentals } from '../domain/market/rentals.js';
import { Volumes } from '../domain/market/volumes.js';

export function buildRentalBilling(
  store: MarketStore,
  ledger: Ledger,
  now: () => number,
  config: Config,
  marketFxRateRubMicro: bigint,
  onUnexpected: (err: unknown) => void,
): { rentals: Rentals; volumes: Volumes } {
  const feeBp = Math.round(config.MARKET_FEE_PERCENT * 100);
  // A provider's earnings are dollars, priced in rubles at the market rate like a dollar top-up.
  const earningsLot = () => ({ currency: 'USD', fxRateRubMicro: marketFxRateRubMicro }) as const;
  const volumes = new Volumes({
    store,
    ledger,
    now,
    settings: { feeBp, priceMicrosPerGbMonth: usdToMicros(config.VOLUME_USD_PER_GB_MONTH) },
    earningsLot,
    onUnexpected,
  });
  const rentals = new Rentals({
    store,
    ledger,
    now,
    settings: {
      feeBp,
      offlineAfterMs: config.MACHINE_OFFLINE_MS,
      sweepMs: config.RENTAL_SWEEP_MS,
      pendingTtlMs: config.RENTAL_PENDING_TTL_MS,
      offlineTtlMs: config.RENTAL_OFFLINE_TTL_MS,
      maxPendingRentals: config.RENTAL_MAX_PENDING_PER_ACCOUNT,
    },
    earningsLot,
    volumes,
    onUnexpected,
  });
  return { rentals, volumes };
}

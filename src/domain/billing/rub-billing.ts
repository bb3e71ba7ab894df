import type { Lot } from '../../adapters/ledger/index.js';
import type { UsageRecord } from '../../adapters/usage-log/index.js';
import { usdMicrosToRubMicro } from '../../lib/currency-conversion.js';

/** The balance in rubles (SPEC 4.3): each lot's remaining money at the rate it was bought at. */
export function rubValueOfBalance(lots: readonly Lot[]): bigint {
  return lots.reduce((rub, lot) => rub + usdMicrosToRubMicro(lot.remainingMicros, lot.fxRateRubMicro), 0n);
}

export interface RubPricing {
  costRubMicro: bigint;
  fxRateRubMicro: bigint;
  rubPricing: 'billed' | 'market';
}

/**
 * SPEC 2.6: `billed` — what the lots that paid were bought at, exact, for charges made while ruble billing
 * was on; `market` — today's rate, for charges made before the switch and for dollar-billed accounts.
 */
export function rubPricingOf(
  record: Pick<UsageRecord, 'billedInRub' | 'costRubMicro' | 'fxRateRubMicro' | 'costMicros'>,
  marketRateMicro: bigint,
): RubPricing {
  if (record.billedInRub && record.costRubMicro !== null) {
    return {
      costRubMicro: record.costRubMicro,
      fxRateRubMicro: record.fxRateRubMicro ?? marketRateMicro,
      rubPricing: 'billed',
    };
  }
  return {
    costRubMicro: usdMicrosToRubMicro(record.costMicros, marketRateMicro),
    fxRateRubMicro: marketRateMicro,
    rubPricing: 'market',
  };
}

import type { Lot, Micros } from '../adapters/ledger/index.js';
import type { UsageRecord } from '../adapters/usage-log/index.js';
import { usdMicrosToRubMicro } from './money.js';

/**
 * The balance in rubles (SPEC 4.3): each lot's remaining money at the rate it was bought at. Money held for
 * requests in flight will be taken from the oldest lots first, so it is skipped from the front.
 */
export function rubValueOfBalance(lots: readonly Lot[], heldMicros: Micros): bigint {
  let toSkip = heldMicros;
  let rub = 0n;
  for (const lot of lots) {
    const skipped = toSkip < lot.remainingMicros ? toSkip : lot.remainingMicros;
    toSkip -= skipped;
    rub += usdMicrosToRubMicro(lot.remainingMicros - skipped, lot.fxRateRubMicro);
  }
  return rub;
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
export function rubPricingOf(record: Pick<UsageRecord, 'billedInRub' | 'costRubMicro' | 'fxRateRubMicro' | 'costMicros'>, marketRateMicro: bigint): RubPricing {
  if (record.billedInRub && record.costRubMicro !== null) {
    return { costRubMicro: record.costRubMicro, fxRateRubMicro: record.fxRateRubMicro ?? marketRateMicro, rubPricing: 'billed' };
  }
  return { costRubMicro: usdMicrosToRubMicro(record.costMicros, marketRateMicro), fxRateRubMicro: marketRateMicro, rubPricing: 'market' };
}

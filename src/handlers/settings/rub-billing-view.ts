import type { components } from '../../../generated/openapi.js';
import { type Balance, balanceMicros, type Lot } from '../../adapters/ledger/index.js';
import { fromMicro, microsToUsd } from '../../domain/billing/money.js';
import { rubValueOfBalance } from '../../domain/billing/rub-billing.js';
import { usdMicrosToRubMicro } from '../../lib/currency-conversion.js';

type RubBilling = components['schemas']['RubBilling'];

/** SPEC 4.3: the state, the balance in rubles and the top-ups it is made of, in spending order. */
export function rubBillingView(
  enabled: boolean,
  balance: Balance,
  lots: readonly Lot[],
  marketRateMicro: bigint,
): RubBilling {
  return {
    enabled,
    balance_usd: microsToUsd(balanceMicros(balance)),
    balance_rub: fromMicro(rubValueOfBalance(lots)),
    market_fx_rate_rub: fromMicro(marketRateMicro),
    lots: lots.map((lot) => ({
      id: lot.id,
      currency: lot.currency,
      created_at: new Date(lot.createdAtMs).toISOString(),
      amount_usd: microsToUsd(lot.amountMicros),
      remaining_usd: microsToUsd(lot.remainingMicros),
      fx_rate_rub: fromMicro(lot.fxRateRubMicro),
      remaining_rub: fromMicro(usdMicrosToRubMicro(lot.remainingMicros, lot.fxRateRubMicro)),
    })),
  };
}

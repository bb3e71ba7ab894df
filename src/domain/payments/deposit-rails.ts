import type { DepositMethod, Processor } from '../../adapters/deposit-store/index.js';
import type { Currency, PaymentProcessor } from '../../adapters/payment-processor/index.js';
import { ApiError } from '../../errors/api-error.js';

/** Which rail takes each method, in which currency (issue 27 items 1-3). */
export const METHOD_RAILS: Readonly<Record<DepositMethod, { processor: Processor; currency: Currency | 'usdt' }>> = {
  card: { processor: 'stripe', currency: 'usd' },
  sbp: { processor: 'yookassa', currency: 'rub' },
  usdt_trc20: { processor: 'tron', currency: 'usdt' },
};

/** The rails this service was configured with; a rail without its settings is off (issue 27). */
export type Rails = Partial<Record<'stripe' | 'yookassa', PaymentProcessor>>;

/**
 * 503 `payment_rail_unavailable` naming the method, for a rail that is off or a processor that is unreachable;
 * `what` is what is unavailable (deposits by the method, unless said).
 */
export function railUnavailable(method: DepositMethod, why: string, what = `Deposits by ${method}`): ApiError {
  return new ApiError('payment_rail_unavailable', `${what} are not available: ${why}`, {
    meta: { method },
  });
}

export function railFor(rails: Rails, method: 'card' | 'sbp'): PaymentProcessor {
  const rail = rails[METHOD_RAILS[method].processor as 'stripe' | 'yookassa'];
  if (rail === undefined) throw railUnavailable(method, 'this service has no settings for it');
  return rail;
}

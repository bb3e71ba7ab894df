/**
 * The renter gets the price shown (docs/marketplace.md "the price shown"). A listing change that raises no plan's
 * price (a cut) reaches new rentals at once; one that raises any plan's price (the hourly price up, or a discount
 * down) is announced and reaches new rentals only after the notice period, the rise taking effect whole (a cut
 * made with it waits too). Until then offers show, and new rentals are charged, the price of now. A renter's cap
 * (`max_price_per_gpu_hour`, a burst order's `max_price`) is compared with the very price the rental is placed at.
 */
import type { Discounts, MachineRecord } from '../../adapters/market-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import { microsToUsd } from '../billing/money.js';
import { PRICING_TYPES, unitPriceMicros } from './plans.js';

/** A listing's prices: the hourly price per GPU and the commitment discounts every plan is derived from. */
export interface Pricing {
  pricePerGpuHourMicros: bigint;
  discountsBp: Discounts;
}

export type PricingPatch = Pick<MachineRecord, 'pricePerGpuHourMicros' | 'discountsBp' | 'priceRise'>;

/** Whether any plan of `next` costs more than the same plan of `current`. */
export function raisesAnyPlan(current: Pricing, next: Pricing): boolean {
  return PRICING_TYPES.some((type) => unitPriceMicros(next, type) > unitPriceMicros(current, type));
}

/**
 * What a provider's new prices write: fields not sent keep the provider's latest intent (an announced rise, else
 * the listing). A cut applies at once and drops any rise announced; a rise is announced for `nowMs + noticeMs`
 * (every rise gets its whole notice from the moment it is made) while the listing keeps charging today's prices.
 */
export function repriced(
  machine: MachineRecord,
  sent: Partial<Pricing>,
  nowMs: number,
  noticeMs: number,
): PricingPatch {
  const intent = machine.priceRise ?? machine;
  const next: Pricing = {
    pricePerGpuHourMicros: sent.pricePerGpuHourMicros ?? intent.pricePerGpuHourMicros,
    discountsBp: sent.discountsBp ?? intent.discountsBp,
  };
  if (!raisesAnyPlan(machine, next)) return { ...next, priceRise: null };
  return {
    pricePerGpuHourMicros: machine.pricePerGpuHourMicros,
    discountsBp: machine.discountsBp,
    priceRise: { ...next, atMs: nowMs + noticeMs },
  };
}

/**
 * The renter's cap on the hourly price per GPU: 409 `price_above_max` naming the field when the listing's price a
 * new rental is charged now is above it. Nothing is taken or held before this check.
 */
export function requireWithinCap(
  machine: Pick<MachineRecord, 'id' | 'pricePerGpuHourMicros'>,
  capMicros: bigint | null,
  field: string,
): void {
  if (capMicros === null || machine.pricePerGpuHourMicros <= capMicros) return;
  const price = microsToUsd(machine.pricePerGpuHourMicros);
  const msg = `offer ${machine.id} costs $${price} per GPU-hour now, above your cap of $${microsToUsd(capMicros)}`;
  throw new ApiError('price_above_max', `${field}: ${msg}`, {
    meta: {
      price_per_gpu_hour_usd: price,
      fields: [{ type: 'price_above_max', loc: ['body', field], msg, ctx: { price_per_gpu_hour_usd: price } }],
    },
  });
}

import type { MachineRecord, PricingType } from '../../adapters/market-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import { microsToUsd } from '../billing/money.js';
import { dueAtStart, isTermPlan, PRICING_TYPES, UNIT_MS, unitPriceMicros } from './plans.js';

type Priced = Pick<MachineRecord, 'pricePerGpuHourMicros' | 'discountsBp'>;

/** What renting `gpuCount` GPUs of a machine on `type` needs in the balance now (an offer's `due_at_start_usd`). */
export function dueAtStartOn(machine: Priced, gpuCount: number, type: PricingType): bigint {
  return dueAtStart(
    {
      pricingType: type,
      unitPriceMicros: unitPriceMicros(machine, type),
      gpuCount,
      termMs: isTermPlan(type) ? UNIT_MS[type] : null,
    },
    0n,
  );
}

/** The plans whose start `availableMicros` covers, shortest first (a metered plan's hour counted for this rental alone). */
export function plansWithin(machine: Priced, gpuCount: number, availableMicros: bigint): PricingType[] {
  return PRICING_TYPES.filter((type) => dueAtStartOn(machine, gpuCount, type) <= availableMicros);
}

/**
 * SPEC 1.3 makes `week` the default, whose whole price is held at start ($67.20 for one GPU at $0.50/h): a 402
 * says which plan the balance does cover, the longest (the best discount), so a new user is not left guessing.
 */
export function withPlanHint(
  err: ApiError,
  machine: Priced,
  gpuCount: number,
  asked: PricingType,
  availableMicros: bigint,
): ApiError {
  const fits = plansWithin(machine, gpuCount, availableMicros);
  const balance = `The balance has $${microsToUsd(availableMicros)} available`;
  const longest = fits.at(-1);
  const hint =
    longest === undefined
      ? `${balance}: no plan of this offer fits (an hour of runtime needs $${microsToUsd(dueAtStartOn(machine, gpuCount, 'hour'))}). Top up the account.`
      : `${balance}: it covers pricing_type "${longest}" on this offer ($${microsToUsd(dueAtStartOn(machine, gpuCount, longest))} at start; plans that fit: ${fits.join(', ')}), not "${asked}" ($${microsToUsd(dueAtStartOn(machine, gpuCount, asked))}). Choose one of them, or top up.`;
  return new ApiError(err.code, err.message, { meta: { ...err.meta, hint } });
}

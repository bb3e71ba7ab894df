/**
 * Rental plans and their prices (SPEC 1.3; DESIGN.md 3 "Rentals: plans"). A provider lists one hourly price per GPU
 * and its commitment discounts; every plan's price is derived from those, and what a rental owes is always
 * recomputed from its whole running time, so frequent settlements never add up rounding.
 */
import type { Discounts, MachineRecord, PricingType } from '../../adapters/market-store/index.js';

export const PRICING_TYPES: readonly PricingType[] = ['minute', 'hour', 'day', 'week', 'month'];
/** SPEC 1.3: the rental UI's default. */
export const DEFAULT_PRICING_TYPE: PricingType = 'week';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;
/** A month plan is 30 days. */
export const UNIT_MS: Record<PricingType, number> = {
  minute: MINUTE_MS,
  hour: HOUR_MS,
  day: DAY_MS,
  week: 7 * DAY_MS,
  month: 30 * DAY_MS,
};

/** Minute and hour plans meter running time; day, week and month plans pay for a term up front. */
export const isTermPlan = (type: PricingType): boolean => type === 'day' || type === 'week' || type === 'month';

/** SPEC 1.3: commitments are 20-40 % below minute pricing; a provider may give less, never more than 40 %. */
export const MAX_DISCOUNT_BP = 4_000;
export const DEFAULT_DISCOUNTS_BP: Discounts = { day: 1_000, week: 2_000, month: 3_000 };

const BP = 10_000n;

/**
 * One GPU's price for one unit of a plan, in micro-USD. The minute price is the hourly one divided by 60, rounded
 * up to a whole micro-dollar (at most a micro-dollar a minute above the hour plan); terms take their discount.
 */
export function unitPriceMicros(
  machine: Pick<MachineRecord, 'pricePerGpuHourMicros' | 'discountsBp'>,
  type: PricingType,
): bigint {
  const hourly = machine.pricePerGpuHourMicros;
  if (type === 'minute') return (hourly + 59n) / 60n;
  if (type === 'hour') return hourly;
  const hours = BigInt(UNIT_MS[type] / HOUR_MS);
  return (hourly * hours * (BP - BigInt(machine.discountsBp[type]))) / BP;
}

/** The plan of a rental as billing needs it. */
export interface RentalTerms {
  pricingType: PricingType;
  unitPriceMicros: bigint;
  gpuCount: number;
  /** Term plans: how long one unit lasts. */
  termMs: number | null;
}

/** What `runningMs` of running time costs in all: per millisecond at the plan's rate, a term never beyond its price. */
export function owedFor(terms: RentalTerms, runningMs: number): bigint {
  const billable = terms.termMs === null ? runningMs : Math.min(runningMs, terms.termMs);
  return (
    (terms.unitPriceMicros * BigInt(terms.gpuCount) * BigInt(Math.max(0, Math.floor(billable)))) /
    BigInt(UNIT_MS[terms.pricingType])
  );
}

/** What `durationMs` more of running costs at the plan's rate (a term's remainder aside): the balance checks use it. */
export function costOfRunning(terms: RentalTerms, durationMs: number): bigint {
  return (terms.unitPriceMicros * BigInt(terms.gpuCount) * BigInt(durationMs)) / BigInt(UNIT_MS[terms.pricingType]);
}

/** DESIGN.md 3: a metered rental starts only with one hour of runtime in the balance. */
export const START_RUNWAY_MS = HOUR_MS;

/**
 * What starting a rental needs in the balance now: a term plan holds what is left of its term's price; a metered
 * plan needs an hour of runtime available (nothing is taken until it runs).
 */
export function dueAtStart(terms: RentalTerms, chargedMicros: bigint): bigint {
  if (terms.termMs === null) return costOfRunning(terms, START_RUNWAY_MS);
  return owedFor(terms, terms.termMs) - chargedMicros;
}

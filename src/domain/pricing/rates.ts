/**
 * What every pricing rule shares: the caller's rate for a catalog price, exact quantities, and the one rounding.
 *
 * A rate is the catalog's USD figure → micro-USD, then the caller's discount, half-up: exactly the number the
 * caller's catalog view shows (model-catalog.ts), so a bill never differs from the price the caller was shown.
 * A cost is Σ quantity × rate kept exact in "micro-USD × millionths" and divided by 10⁶ once, half-up, at the end.
 */
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts } from '../catalog/model-catalog.js';
import { applyDiscount, usdToMicros, type Micros } from '../money.js';

/** The public (list) price: what `estimated_cost_usd` quotes and what a caller without discounts pays. */
export const NO_DISCOUNTS: CallerDiscounts = Object.freeze({ discountPercent: 0, tierDiscounts: Object.freeze({}) });

/** The catalog fields that hold one price each (the tiers of `pricing` are looked up by `tierRate`). */
export type PriceField =
  | 'retail_input_usd_per_mtok'
  | 'retail_output_usd_per_mtok'
  | 'retail_cached_input_usd_per_mtok'
  | 'retail_usd_per_image'
  | 'retail_usd_per_unit'
  | 'usd_per_credit';

const MILLION = 1_000_000n;

/** A row without the price a rule needs is a catalog bug, not a client mistake: a plain Error. */
export function missingPrice(entry: CatalogFileEntry, what: string): Error {
  return new Error(`catalog row "${entry.slug}" has no ${what}; it cannot be priced`);
}

/** Micro-USD per unit after `percent` off, as the catalog view shows it (rate rounded to $0.000001). */
export function callerRate(usd: number, percent: number): Micros {
  return applyDiscount(usdToMicros(usd), percent);
}

/** A single-price field at the caller's personal discount (tier discounts only ever apply to `pricing`). */
export function personalRate(entry: CatalogFileEntry, field: PriceField, discounts: CallerDiscounts): Micros {
  const usd = entry[field];
  if (usd === null) throw missingPrice(entry, field);
  return callerRate(usd, discounts.discountPercent);
}

/** `pricing[tier]` at the caller's discount for that tier, which replaces the personal one when set. */
export function tierRate(entry: CatalogFileEntry, tier: string, discounts: CallerDiscounts): Micros {
  const usd = hasTier(entry, tier) ? entry.pricing?.[tier] : undefined;
  if (usd === undefined) throw missingPrice(entry, `pricing["${tier}"]`);
  const tierPercent = Object.hasOwn(discounts.tierDiscounts, tier) ? discounts.tierDiscounts[tier] : undefined;
  return callerRate(usd, tierPercent ?? discounts.discountPercent);
}

export function hasTier(entry: CatalogFileEntry, tier: string): boolean {
  return entry.pricing !== null && Object.hasOwn(entry.pricing, tier);
}

/** `numerator / 10⁶`, half-up: the single rounding at the end of every cost (numerator ≥ 0). */
export function roundMillionths(numerator: bigint): Micros {
  return (numerator + MILLION / 2n) / MILLION;
}

/** A count that must be a whole number (tokens, images, characters). */
export function wholeCount(value: number, what: string): bigint {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${what} must be a non-negative integer, got ${value}`);
  return BigInt(value);
}

/**
 * A quantity that may carry decimals (seconds, credits), in millionths of its unit, half-up on its shortest
 * decimal form (so 4.00025 s is exactly 4_000_250). Measured lengths finer than a microsecond are noise.
 */
export function millionths(value: number, what: string): bigint {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${what} must be a non-negative number, got ${value}`);
  return usdToMicros(value); // the same exact decimal → 10⁻⁶ fixed-point conversion; nothing USD-specific in it
}

/** `quantity × rate`, rounded once: for per-unit prices (per image, second, character, credit, clip). */
export function unitCost(quantityMillionths: bigint, rate: Micros): Micros {
  return roundMillionths(quantityMillionths * rate);
}

export const ONE_UNIT = MILLION;

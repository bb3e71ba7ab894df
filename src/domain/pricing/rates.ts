/**
 * What every pricing rule shares: the caller's rate for a catalog price, exact quantities, and the one rounding.
 *
 * A rate is the catalog's USD figure with the caller's discount applied exactly (pico-USD × the basis points left
 * to pay, no rounding), the number the caller's catalog view shows (model-catalog.ts), so a bill never differs from
 * the price the caller was shown, and a discount on a price of a few micro-dollars is never lost (SPEC 2.5, 4.3).
 * A cost is Σ quantity × rate kept exact and rounded once, half-up, to $0.000001 at the end (SPEC 8).
 */

import { type Micros, payableBasisPoints, scaledToNumber, usdToMicros, usdToPicos } from '../billing/money.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts } from '../catalog/model-catalog.js';

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

/** A caller's price per unit (or per million tokens) in 10⁻¹⁶ USD: pico-USD × basis points left to pay. */
export type Rate = bigint;

const MILLION = 1_000_000n;
/** Decimal places of a Rate (12 of pico-USD, 4 of basis points). */
const RATE_PLACES = 16;
/** Quantity in millionths (10⁶) × Rate (10¹⁶ a USD) = 10²² a USD = 10¹⁶ a micro-USD; tokens × a per-Mtok Rate too. */
const RATED_PER_MICRO = 10n ** 16n;

/** A row without the price a rule needs is a catalog bug, not a client mistake: a plain Error. */
export function missingPrice(entry: CatalogFileEntry, what: string): Error {
  return new Error(`catalog row "${entry.slug}" has no ${what}; it cannot be priced`);
}

/** The price per unit after `percent` off, exact: what a bill multiplies. */
function callerRate(usd: number, percent: number): Rate {
  return usdToPicos(usd) * payableBasisPoints(percent);
}

/** That price as the caller's catalog view shows it: in USD, at full precision (0.000015 at 10 % off is 0.0000135). */
export function shownPrice(usd: number, percent: number): number {
  return scaledToNumber(callerRate(usd, percent), RATE_PLACES);
}

/** A single-price field at the caller's personal discount (tier discounts only ever apply to `pricing`). */
export function personalRate(entry: CatalogFileEntry, field: PriceField, discounts: CallerDiscounts): Rate {
  const usd = entry[field];
  if (usd === null) throw missingPrice(entry, field);
  return callerRate(usd, discounts.discountPercent);
}

/** `pricing[tier]` at the caller's discount for that tier, which replaces the personal one when set. */
export function tierRate(entry: CatalogFileEntry, tier: string, discounts: CallerDiscounts): Rate {
  const usd = hasTier(entry, tier) ? entry.pricing?.[tier] : undefined;
  if (usd === undefined) throw missingPrice(entry, `pricing["${tier}"]`);
  const tierPercent = Object.hasOwn(discounts.tierDiscounts, tier) ? discounts.tierDiscounts[tier] : undefined;
  return callerRate(usd, tierPercent ?? discounts.discountPercent);
}

export function hasTier(entry: CatalogFileEntry, tier: string): boolean {
  return entry.pricing !== null && Object.hasOwn(entry.pricing, tier);
}

/**
 * Σ (quantity in millionths, or tokens) × Rate → micro-USD, half-up: the single rounding at the end of every cost
 * (numerator ≥ 0). A token count needs no millionths: its rate is per million tokens.
 */
export function roundCost(numerator: bigint): Micros {
  return (numerator + RATED_PER_MICRO / 2n) / RATED_PER_MICRO;
}

/** A count that must be a whole number (tokens, images, characters). */
export function wholeCount(value: number, what: string): bigint {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${what} must be a non-negative integer, got ${value}`);
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
export function unitCost(quantityMillionths: bigint, rate: Rate): Micros {
  return roundCost(quantityMillionths * rate);
}

export const ONE_UNIT = MILLION;

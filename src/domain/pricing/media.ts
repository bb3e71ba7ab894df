/** Per-unit media: images (SPEC 2.11, 4.6), music and speech, restoration credits (SPEC 4.6, 8). */

import type { Micros } from '../billing/money.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts } from '../catalog/model-catalog.js';
import { millionths, ONE_UNIT, personalRate, tierRate, unitCost, wholeCount } from './rates.js';

export interface ImageUsage {
  /** Images delivered (only delivered images are billed). */
  images: number;
  /** The `pricing` tier the request resolved to (`1K`/`2K`/`4K`, `low`/`medium`/`high`, `1024x1536`, ...). */
  tier?: string;
}

/**
 * Delivered images × the per-image rate: `pricing[tier]` (at the caller's discount for that tier) when the row
 * has tiers and a tier is given, else `retail_usd_per_image` (at the personal discount), which is the row's
 * base-SKU price. A tier the row's `pricing` lacks is an error, never a silent fallback to a cheaper price.
 */
export function imageCost(entry: CatalogFileEntry, usage: ImageUsage, discounts: CallerDiscounts): Micros {
  const images = wholeCount(usage.images, 'images');
  const rate =
    entry.pricing !== null && usage.tier !== undefined
      ? tierRate(entry, usage.tier, discounts)
      : personalRate(entry, 'retail_usd_per_image', discounts);
  return unitCost(images * ONE_UNIT, rate);
}

/**
 * Music and speech: `retail_usd_per_unit` × units, the unit being the row's `audio_billing_unit` — seconds of
 * audio (decimals allowed) or characters of input text (whole numbers).
 */
export function audioCost(entry: CatalogFileEntry, units: number, discounts: CallerDiscounts): Micros {
  const unit = entry.audio_billing_unit;
  if (unit === null)
    throw new Error(`catalog row "${entry.slug}" has no audio_billing_unit; it is not a music or speech model`);
  const quantity = unit === 'character' ? wholeCount(units, 'characters') * ONE_UNIT : millionths(units, 'seconds');
  return unitCost(quantity, personalRate(entry, 'retail_usd_per_unit', discounts));
}

/**
 * Restoration: credits × `usd_per_credit` ($0.14), charged only on completion (SPEC 4.6): the caller passes the
 * credits the finished job consumed. Credits may carry decimals.
 */
export function restorationCost(entry: CatalogFileEntry, credits: number, discounts: CallerDiscounts): Micros {
  return unitCost(millionths(credits, 'credits'), personalRate(entry, 'usd_per_credit', discounts));
}

const MEGAPIXELS_PER_CREDIT = 24n;

/**
 * Credits for an output of `megapixels` on a precision restoration model: SPEC 4.6 says "about 1 credit per
 * 24 megapixels of output", so this rounds UP to whole credits (any output costs at least 1 credit; exactly
 * 24 MP is 1 credit, 24.000001 MP is 2). It is the estimate; the credits the upstream reports on completion
 * are what `restorationCost` bills.
 */
export function creditsForMegapixels(megapixels: number): number {
  const perCredit = MEGAPIXELS_PER_CREDIT * ONE_UNIT;
  const mp = millionths(megapixels, 'megapixels');
  return Number((mp + perCredit - 1n) / perCredit);
}

/**
 * Pricing: pure functions from a catalog row, a measured usage and the caller's discounts to a cost in integer
 * micro-USD (DESIGN.md 3). Rates come from the row, each after the caller's discount exactly as the caller's
 * catalog view shows it; every cost is rounded once, half-up at $0.000001, at the end (SPEC 8).
 */

/** Micros → the JSON edge's USD number: money.ts's conversion, under the name the handlers use. */
export { microsToUsd as toUsd } from '../billing/money.js';
export { audioCost, creditsForMegapixels, type ImageUsage, imageCost, restorationCost } from './media.js';
export { NO_DISCOUNTS } from './rates.js';
export { retrievalCost, type TextCostOptions, type TextUsage, textCost, textHoldEstimate } from './token-prices.js';
export {
  billsReferenceLength,
  isParametricVideo,
  parametricRetail,
  type VideoHoldOptions,
  type VideoRequest,
  type VideoUsage,
  videoCost,
  videoHoldEstimate,
} from './video.js';

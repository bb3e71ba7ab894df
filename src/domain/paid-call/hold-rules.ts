import type { Micros } from '../billing/money.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts } from '../catalog/model-catalog.js';
import { retrievalCost } from '../pricing/index.js';

/**
 * Retrieval holds. SPEC 4.1.3 bills embeddings and rerank on input tokens only, "as the model counts them", and
 * DESIGN.md 3 ("Pre-flight", "Hold = ceiling") holds the worst case before the call and caps the charge at it.
 * Upstream tokenizers differ a little from ours, so the hold covers twice our count plus a few tokens, and settling
 * on the upstream's own count never needs more. The spec leaves the margin open: these numbers are ours.
 */
export const RETRIEVAL_HOLD_COUNT_FACTOR = 2;
/** See RETRIEVAL_HOLD_COUNT_FACTOR: the spare tokens on top, so even an input we count as empty holds something. */
export const RETRIEVAL_HOLD_SPARE_TOKENS = 16;

/** The input tokens a retrieval call holds for, given the tokens we counted (SPEC 4.1.3, DESIGN.md 3). */
export function retrievalHoldTokens(countedTokens: number): number {
  return countedTokens * RETRIEVAL_HOLD_COUNT_FACTOR + RETRIEVAL_HOLD_SPARE_TOKENS;
}

/** The retrieval hold rule in money: the caller's price of retrievalHoldTokens. */
export function retrievalHoldFor(
  entry: CatalogFileEntry,
  discounts: CallerDiscounts,
): (countedTokens: number) => Micros {
  return (countedTokens) => retrievalCost(entry, retrievalHoldTokens(countedTokens), discounts);
}

/**
 * SPEC 4.2 "Pre-flight balance check uses the worst case max_tokens times the retail output rate": every choice
 * (`n`) may produce the whole output cap, so the hold covers the cap once per choice.
 */
export function chatHoldOutputTokens(maxOutputTokens: number, choices: number | undefined): number {
  return maxOutputTokens * (choices ?? 1);
}

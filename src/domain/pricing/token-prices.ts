/** Token-priced models: text (SPEC 2.6, 4.2) and retrieval, i.e. embeddings and rerank (SPEC 4.1 rule 3). */

import type { Micros } from '../billing/money.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts } from '../catalog/model-catalog.js';
import { personalRate, roundCost, wholeCount } from './rates.js';

/**
 * Token counts of one text call, in the compat wire's sense: `promptTokens` includes the `cachedTokens`
 * (prompt_tokens_details.cached_tokens), and `completionTokens` includes hidden reasoning tokens (SPEC 2.6).
 * An upstream that reports cache reads beside its input count must be normalised to this before pricing.
 */
export interface TextUsage {
  promptTokens: number;
  cachedTokens: number;
  completionTokens: number;
}

export interface TextCostOptions {
  /** Whether the provider that served the call discounted the cached input (SPEC 2.6). */
  cachedDiscountApplies: boolean;
}

/**
 * What a text call costs: prompt at the input rate, completion (reasoning included) at the output rate, and the
 * cached part of the prompt at the cached-input rate only when the serving provider discounted it; otherwise
 * cached tokens are billed as normal input (SPEC 2.6). Rates per million tokens, rounded once at the end.
 */
export function textCost(
  entry: CatalogFileEntry,
  usage: TextUsage,
  discounts: CallerDiscounts,
  opts: TextCostOptions,
): Micros {
  const prompt = wholeCount(usage.promptTokens, 'promptTokens');
  const cached = wholeCount(usage.cachedTokens, 'cachedTokens');
  const completion = wholeCount(usage.completionTokens, 'completionTokens');
  if (cached > prompt)
    throw new RangeError(
      `cachedTokens (${cached}) exceed promptTokens (${prompt}); cached tokens are part of the prompt`,
    );
  const input = personalRate(entry, 'retail_input_usd_per_mtok', discounts);
  const output = personalRate(entry, 'retail_output_usd_per_mtok', discounts);
  let total = completion * output;
  if (opts.cachedDiscountApplies && cached > 0n) {
    const cachedRate = personalRate(entry, 'retail_cached_input_usd_per_mtok', discounts);
    total += (prompt - cached) * input + cached * cachedRate;
  } else {
    total += prompt * input;
  }
  return roundCost(total);
}

/**
 * The pre-flight hold for a text call (SPEC 4.2): the estimated prompt at the full input rate (no cache credit
 * is assumed) plus `maxOutputTokens` at the output rate, the worst case the call can cost.
 */
export function textHoldEstimate(
  entry: CatalogFileEntry,
  promptTokensEstimate: number,
  maxOutputTokens: number,
  discounts: CallerDiscounts,
): Micros {
  const prompt = wholeCount(promptTokensEstimate, 'promptTokensEstimate');
  const output = wholeCount(maxOutputTokens, 'maxOutputTokens');
  const inputRate = personalRate(entry, 'retail_input_usd_per_mtok', discounts);
  const outputRate = personalRate(entry, 'retail_output_usd_per_mtok', discounts);
  return roundCost(prompt * inputRate + output * outputRate);
}

/**
 * An embeddings or rerank call (SPEC 4.1 rule 3): input tokens only (every `input`; rerank: query plus documents
 * as the model counts them). `retail_input_usd_per_mtok` already is the price 20 % below the vendor's, so only
 * the personal discount is applied on top. Very short input on a cheap model rounds to 0 (SPEC 2.2 usage.cost).
 */
export function retrievalCost(entry: CatalogFileEntry, inputTokens: number, discounts: CallerDiscounts): Micros {
  if (entry.media_kind !== 'embedding' && entry.media_kind !== 'rerank') {
    throw new Error(`catalog row "${entry.slug}" is not an embedding or rerank model (media_kind ${entry.media_kind})`);
  }
  const tokens = wholeCount(inputTokens, 'inputTokens');
  return roundCost(tokens * personalRate(entry, 'retail_input_usd_per_mtok', discounts));
}

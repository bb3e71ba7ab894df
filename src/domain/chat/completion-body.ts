import type { components } from '../../../generated/openapi.js';
import type { Usage } from '../../adapters/upstream/index.js';
import type { Charge } from '../billing/billing.js';
import { fromMicro, microsToUsd } from '../billing/money.js';

type ChatCompletion = components['schemas']['ChatCompletion'];
type ChatUsage = components['schemas']['ChatUsage'];

/**
 * The usage block of a billed completion (SPEC 2.6): tokens, `cost` (USD charged) and, when billed in
 * rubles, `cost_rub` (both surfaces) and `fx_rate_rub` (compat only). Upstream cost breakdowns are not forwarded.
 */
export function chatUsage(usage: Usage, charge: Charge, surface: 'compat' | 'native'): ChatUsage {
  const block: ChatUsage = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    cost: microsToUsd(charge.costMicros),
  };
  if (charge.costRubMicro !== null) {
    block.cost_rub = fromMicro(charge.costRubMicro);
    if (surface === 'compat' && charge.fxRateRubMicro !== null) block.fx_rate_rub = fromMicro(charge.fxRateRubMicro);
  }
  return block;
}

/** The upstream's completion with our slug as `model` (the slug billed) and our usage block. */
export function completionBody(completion: Record<string, unknown>, slug: string, usage: ChatUsage): ChatCompletion {
  return { ...(completion as ChatCompletion), model: slug, usage };
}

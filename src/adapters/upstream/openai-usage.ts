import { isRecord } from '../../lib/is-record.js';
import type { Usage } from './index.js';

/** A token count as the wire carries it: a non-negative integer, or null. */
export function tokenCount(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : null;
}

/**
 * OpenAI `usage` (a chat completion's, or a stream's usage chunk) as our Usage; null when absent or not countable.
 * Cached tokens are part of the prompt and reasoning tokens part of the completion (SPEC 2.6): a vendor that
 * reports more of them than of the whole is clamped here, so pricing never meets an impossible usage.
 */
export function parseOpenAiUsage(value: unknown): Usage | null {
  if (!isRecord(value)) return null;
  const promptTokens = tokenCount(value.prompt_tokens);
  const completionTokens = tokenCount(value.completion_tokens);
  if (promptTokens === null || completionTokens === null) return null;
  const promptDetails = isRecord(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const completionDetails = isRecord(value.completion_tokens_details) ? value.completion_tokens_details : {};
  return {
    promptTokens,
    completionTokens,
    cachedTokens: Math.min(tokenCount(promptDetails.cached_tokens) ?? 0, promptTokens),
    reasoningTokens: Math.min(tokenCount(completionDetails.reasoning_tokens) ?? 0, completionTokens),
  };
}

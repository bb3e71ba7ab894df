import { countTokens, estimatePromptTokens, truncateToTokens } from '../../domain/text/token-counting.js';

/** The jobs both twins run, by name; the worker pool's threads export these. */
export function promptTokens(body: Record<string, unknown>): number {
  return estimatePromptTokens(body);
}

export function count(texts: readonly string[]): number[] {
  return texts.map(countTokens);
}

export function truncate({ texts, maxTokens }: { texts: readonly string[]; maxTokens: number }): string[] {
  return texts.map((text) => truncateToTokens(text, maxTokens));
}

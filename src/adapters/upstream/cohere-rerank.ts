/**
 * Cohere's rerank API (`POST {baseUrl}/v1/rerank`) as an upstream for SPEC 4.1 rerank. Cohere bills search
 * units, not tokens, so `promptTokens` is null and the caller counts the query plus documents itself
 * (SPEC 4.1 rule 3: billed on input tokens as the model counts them).
 */
import type { Dispatcher } from 'undici';
import { UpstreamError, type RerankCall, type RerankResult, type UpstreamProvider } from './index.js';
import { authHeaders, budgetBefore, createUpstreamAgent, DEFAULT_BUDGET_MS, postJson, validateBaseUrl } from './http-client.js';
import { isRecord } from '../../is-record.js';
import { scoredDocument } from './rerank-result.js';

export interface CohereRerankOptions {
  name: string;
  baseUrl: string;
  apiKey?: string;
  budgetMs?: number;
  /** A dispatcher shared with other providers (not closed by `close()`); by default the provider owns one. */
  dispatcher?: Dispatcher;
}

export class CohereRerankProvider implements UpstreamProvider {
  readonly name: string;
  readonly streams = false;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #budgetMs: number;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: CohereRerankOptions) {
    this.name = options.name;
    this.#url = `${validateBaseUrl(options.name, options.baseUrl)}/v1/rerank`;
    this.#headers = authHeaders(options.apiKey);
    this.#budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? createUpstreamAgent();
  }

  async rerank(call: RerankCall): Promise<RerankResult> {
    const body = { model: call.upstreamModel, query: call.query, documents: call.documents, top_n: call.topN };
    const json = await postJson({ dispatcher: this.#dispatcher, url: this.#url, headers: this.#headers, body, signal: call.signal, budgetMs: budgetBefore(this.#budgetMs, call.deadlineAtMs) });
    const results = isRecord(json) ? json.results : undefined;
    if (!Array.isArray(results)) throw new UpstreamError({ kind: 'bad_response', message: 'Cohere rerank answer without `results`' });
    return { results: results.map((item: unknown) => scoredDocument(item, call.documents.length, 'relevance_score', 'Cohere')), promptTokens: null };
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}

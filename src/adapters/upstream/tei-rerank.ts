/**
 * Hugging Face text-embeddings-inference as a rerank upstream (`POST {baseUrl}/rerank`), for self-hosted
 * cross-encoders (SPEC 4.1). A TEI server serves one model, so no model id is sent; it scores every text and
 * the caller sorts and cuts to `top_n`. TEI reports no token count: `promptTokens` is null.
 */
import type { Dispatcher } from 'undici';
import { UpstreamError, type RerankCall, type RerankResult, type UpstreamProvider } from './index.js';
import { authHeaders, budgetBefore, createUpstreamAgent, DEFAULT_BUDGET_MS, postJson, validateBaseUrl } from './http-client.js';
import { scoredDocument } from './rerank-result.js';

export interface TeiRerankOptions {
  name: string;
  baseUrl: string;
  /** TEI started with `--api-key` expects it as a Bearer token. */
  apiKey?: string;
  budgetMs?: number;
  /** A dispatcher shared with other providers (not closed by `close()`); by default the provider owns one. */
  dispatcher?: Dispatcher;
}

export class TeiRerankProvider implements UpstreamProvider {
  readonly name: string;
  readonly streams = false;
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #budgetMs: number;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: TeiRerankOptions) {
    this.name = options.name;
    this.#url = `${validateBaseUrl(options.name, options.baseUrl)}/rerank`;
    this.#headers = authHeaders(options.apiKey);
    this.#budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? createUpstreamAgent();
  }

  async rerank(call: RerankCall): Promise<RerankResult> {
    // raw_scores false: sigmoid-normalised scores in [0, 1], comparable with other vendors' relevance scores.
    // truncate true: an over-long document is cut to the model's window instead of failing the whole request.
    const body = { query: call.query, texts: call.documents, raw_scores: false, truncate: true };
    const json = await postJson({ dispatcher: this.#dispatcher, url: this.#url, headers: this.#headers, body, signal: call.signal, budgetMs: budgetBefore(this.#budgetMs, call.deadlineAtMs) });
    if (!Array.isArray(json)) throw new UpstreamError({ kind: 'bad_response', message: 'TEI rerank answer is not an array' });
    return { results: json.map((item: unknown) => scoredDocument(item, call.documents.length, 'score', 'TEI')), promptTokens: null };
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}

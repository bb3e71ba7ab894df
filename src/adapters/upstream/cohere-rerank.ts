/**
 * Cohere's rerank API (`POST {baseUrl}/v1/rerank`) as an upstream for SPEC 4.1 rerank. Cohere bills search
 * units, not tokens, so `promptTokens` is null and the caller counts the query plus documents itself
 * (SPEC 4.1 rule 3: billed on input tokens as the model counts them).
 */

import { isRecord } from '../../lib/is-record.js';
import { type RerankCall, type RerankResult, UpstreamError, type UpstreamProvider } from './index.js';
import { JsonEndpoint, type JsonEndpointOptions } from './json-endpoint.js';
import { scoredDocument } from './rerank-result.js';

export type CohereRerankOptions = Omit<JsonEndpointOptions, 'path'>;

export class CohereRerankProvider implements UpstreamProvider {
  readonly name: string;
  readonly streams = false;
  readonly #endpoint: JsonEndpoint;

  constructor(options: CohereRerankOptions) {
    this.name = options.name;
    this.#endpoint = new JsonEndpoint({ ...options, path: '/v1/rerank' });
  }

  async rerank(call: RerankCall): Promise<RerankResult> {
    const body = { model: call.upstreamModel, query: call.query, documents: call.documents, top_n: call.topN };
    const json = await this.#endpoint.post(body, call);
    const results = isRecord(json) ? json.results : undefined;
    if (!Array.isArray(results))
      throw new UpstreamError({ kind: 'bad_response', message: 'Cohere rerank answer without `results`' });
    return {
      results: results.map((item: unknown) => scoredDocument(item, call.documents.length, 'relevance_score', 'Cohere')),
      promptTokens: null,
    };
  }

  close(): Promise<void> {
    return this.#endpoint.close();
  }
}

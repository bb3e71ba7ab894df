/**
 * Hugging Face text-embeddings-inference as a rerank upstream (`POST {baseUrl}/rerank`), for self-hosted
 * cross-encoders (SPEC 4.1). A TEI server serves one model, so no model id is sent; it scores every text and
 * the caller sorts and cuts to `top_n`. TEI reports no token count: `promptTokens` is null.
 */
import { type RerankCall, type RerankResult, UpstreamError, type UpstreamProvider } from './index.js';
import { JsonEndpoint, type JsonEndpointOptions } from './json-endpoint.js';
import { scoredDocument } from './rerank-result.js';

/** `apiKey`: TEI started with `--api-key` expects it as a Bearer token. */
export type TeiRerankOptions = Omit<JsonEndpointOptions, 'path'>;

export class TeiRerankProvider implements UpstreamProvider {
  readonly name: string;
  readonly streams = false;
  readonly #endpoint: JsonEndpoint;

  constructor(options: TeiRerankOptions) {
    this.name = options.name;
    this.#endpoint = new JsonEndpoint({ ...options, path: '/rerank' });
  }

  async rerank(call: RerankCall): Promise<RerankResult> {
    // raw_scores false: sigmoid-normalised scores in [0, 1], comparable with other vendors' relevance scores.
    // truncate true: an over-long document is cut to the model's window instead of failing the whole request.
    const body = { query: call.query, texts: call.documents, raw_scores: false, truncate: true };
    const json = await this.#endpoint.post(body, call);
    if (!Array.isArray(json))
      throw new UpstreamError({ kind: 'bad_response', message: 'TEI rerank answer is not an array' });
    return {
      results: json.map((item: unknown) => scoredDocument(item, call.documents.length, 'score', 'TEI')),
      promptTokens: null,
    };
  }

  close(): Promise<void> {
    return this.#endpoint.close();
  }
}

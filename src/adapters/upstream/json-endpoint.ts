import type { Dispatcher } from 'undici';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import {
  authHeaders,
  budgetBefore,
  createUpstreamAgent,
  DEFAULT_BUDGET_MS,
  postJson,
  validateBaseUrl,
} from '../../lib/outbound-http.js';

export interface JsonEndpointOptions {
  /** The provider's name in the upstreams file (for messages). */
  name: string;
  baseUrl: string;
  /** Appended to the base URL, e.g. `/v1/rerank`. */
  path: string;
  /** Sent as a Bearer token. */
  apiKey?: string;
  budgetMs?: number;
  /** A dispatcher shared with other providers (not closed by `close()`); by default the endpoint owns one. */
  dispatcher?: Dispatcher;
}

/**
 * One vendor endpoint that answers JSON POSTs (rerankers, images APIs): its URL, credentials, time budget and
 * connection pool, so each provider over it only shapes its request and reads its answer.
 */
export class JsonEndpoint {
  readonly #url: string;
  readonly #headers: Record<string, string>;
  readonly #budgetMs: number;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: JsonEndpointOptions) {
    this.#url = `${validateBaseUrl(options.name, options.baseUrl)}${options.path}`;
    this.#headers = authHeaders(options.apiKey);
    this.#budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? createUpstreamAgent();
  }

  /** The parsed 2xx JSON answer; every failure is an UpstreamError. The call's deadline caps the budget. */
  post(body: unknown, call: { signal: CancelSignal; deadlineAtMs: number }): Promise<unknown> {
    return postJson({
      dispatcher: this.#dispatcher,
      url: this.#url,
      headers: this.#headers,
      body,
      signal: call.signal,
      budgetMs: budgetBefore(this.#budgetMs, call.deadlineAtMs),
    });
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }
}

/**
 * `ComputeGateway`: one configured client for the whole API (SPEC 1: one key, one balance). It wraps the client
 * generated from the contract with what every caller would otherwise write again: the base URL, the key or
 * session token, retries that never charge twice, and errors as `GatewayError`.
 */

import { errorFromFailure, errorFromResponse } from './errors.js';
import { type Client, createClient } from './generated/client/index.js';
import type { ChatRequest, ResponsesRequest } from './generated/types.gen.js';
import { type JobKind, type JobTypes, jobKinds } from './job-kinds.js';
import { type WaitOptions, waitForJob } from './jobs.js';
import { defaultRetryPolicy, type RetryPolicy, retryingFetch } from './retrying-fetch.js';
import { type StreamOptions, streamChat, streamResponse } from './streams.js';

type TokenSource = string | (() => string | undefined | Promise<string | undefined>);

export interface GatewayOptions {
  /** Where the service answers. Default: `CGW_BASE_URL`, else the page's origin in a browser, else
   * `http://127.0.0.1:8080` (what `make run` serves). */
  baseUrl?: string;
  /** An API key (`cgw_...`, SPEC 5.1), sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** A session's access token (`cgw_at_...`), or a function that returns the current one. */
  accessToken?: TokenSource;
  /** `include` to send the dashboard's session cookie instead of a token (same origin). */
  credentials?: RequestCredentials;
  retry?: Partial<RetryPolicy>;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
}

/** Any generated operation: it takes its options and answers `{ data, response }` (SDK operations of hey-api). */
// biome-ignore lint/suspicious/noExplicitAny: the operations' own option types are checked through OptionsOf.
type AnyOperation = (options: any) => Promise<{ data?: unknown }>;
type CallOptionsOf<F extends AnyOperation> = Omit<NonNullable<Parameters<F>[0]>, 'client' | 'throwOnError'>;
/** Operations whose options are all optional may be called without them. */
type OptionsOf<F extends AnyOperation> = undefined extends Parameters<F>[0]
  ? [options?: CallOptionsOf<F>]
  : [options: CallOptionsOf<F>];
type DataOf<F extends AnyOperation> = Exclude<Awaited<ReturnType<F>>['data'], undefined>;

const environment = (name: string): string | undefined =>
  (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[name];

export function defaultBaseUrl(): string {
  const origin = (globalThis as { location?: { origin?: string } }).location?.origin;
  return environment('CGW_BASE_URL') ?? (origin && origin !== 'null' ? origin : 'http://127.0.0.1:8080');
}

export class ComputeGateway {
  /** The generated client, configured: pass it as `client` to any operation of the contract. */
  readonly client: Client;
  readonly baseUrl: string;

  constructor(options: GatewayOptions = {}) {
    this.baseUrl = (options.baseUrl ?? defaultBaseUrl()).replace(/\/+$/, '');
    const token = options.accessToken ?? options.apiKey;
    const send = retryingFetch({ ...defaultRetryPolicy, ...options.retry }, options.fetch);
    this.client = createClient({
      baseUrl: this.baseUrl,
      throwOnError: true,
      fetch: send,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      ...(options.headers ? { headers: options.headers } : {}),
      // Operations list both bearer and X-API-Key; one header is enough.
      auth: (scheme) => (scheme.scheme === 'bearer' ? (typeof token === 'function' ? token() : token) : undefined),
    });
    this.client.interceptors.error.use((error, response, request) =>
      response ? errorFromResponse(response, error) : errorFromFailure(error, request?.signal),
    );
  }

  /**
   * Calls a generated operation with this client: `await gateway.call(listOffers, { query: { limit: 5 } })`
   * answers the operation's typed body or throws `GatewayError`.
   */
  async call<F extends AnyOperation>(op: F, ...options: OptionsOf<F>): Promise<DataOf<F>> {
    const result = await op({ ...options[0], client: this.client, throwOnError: true });
    return result.data as DataOf<F>;
  }

  /** Native chat completion as it streams: `for await (const chunk of gateway.streamChat({ model, messages }))`. */
  streamChat(body: ChatRequest, options?: StreamOptions) {
    return streamChat(this.client, body, options);
  }

  /** A Responses request as its typed events stream (`response.output_text.delta`, ..., `response.completed`). */
  streamResponse(body: ResponsesRequest, options?: StreamOptions) {
    return streamResponse(this.client, body, options);
  }

  /** Starts a job (`image`, `video`, `music`, `speech`, `restoreImage`, `restoreVideo`, `chat`); its money is held. */
  startJob<K extends JobKind>(kind: K, body: JobTypes[K]['body']): Promise<JobTypes[K]['job']> {
    return jobKinds[kind].start(this.client, body);
  }

  /** Polls a job until it completes (its record) or fails (`JobFailedError`), with backoff. */
  waitForJob<K extends JobKind>(
    kind: K,
    jobId: string,
    options?: WaitOptions<JobTypes[K]['job']>,
  ): Promise<JobTypes[K]['job']> {
    return waitForJob((signal) => jobKinds[kind].read(this.client, jobId, signal), options);
  }

  /** `startJob` then `waitForJob`: the finished record, with `outputs` to download. */
  async runJob<K extends JobKind>(
    kind: K,
    body: JobTypes[K]['body'],
    options?: WaitOptions<JobTypes[K]['job']>,
  ): Promise<JobTypes[K]['job']> {
    const job = await this.startJob(kind, body);
    return this.waitForJob(kind, job.job_id, options);
  }
}

/**
 * A queue API in fal.ai's style as a media upstream (SPEC 3.1; research/media.md A.1): `POST {base}/{model}` submits
 * and answers `{request_id}`; `GET {base}/{model}/requests/{id}/status` answers `IN_QUEUE` (0 %), `IN_PROGRESS`
 * (with `progress` in percent where the app reports one) or `COMPLETED`; `GET {base}/{model}/requests/{id}` then
 * answers the result, whose media are objects with a `url` (`audio`, `video`, `image`, `images`, …), or an error
 * (`detail: [{loc, msg, type}]`, `content_policy_violation` for a refusal on content policy). Authenticated with
 * `Authorization: Key <key>`. The task id is the request id: any process can poll it.
 */
import type { Dispatcher } from 'undici';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import { isRecord } from '../../lib/is-record.js';
import {
  budgetBefore,
  createUpstreamAgent,
  DEFAULT_BUDGET_MS,
  getJson,
  postJson,
  validateBaseUrl,
} from '../../lib/outbound-http.js';
import {
  type MediaCall,
  type MediaKind,
  type MediaOutput,
  type MediaTaskState,
  UpstreamError,
  type UpstreamFailure,
  type UpstreamProvider,
} from './index.js';

export interface FalQueueOptions {
  name: string;
  baseUrl: string;
  apiKey?: string;
  budgetMs?: number;
  /** The containers it delivers per media kind (the upstreams file's `formats`). */
  formats: Partial<Record<MediaKind, readonly string[]>>;
}

/** Result statuses that are the render's own outcome, not a hiccup of the API in front of it. */
const TASK_FAILURES = new Set([400, 422, 500]);

interface Call {
  upstreamModel: string;
  signal: CancelSignal;
  deadlineAtMs: number;
}

export class FalQueueProvider implements UpstreamProvider {
  readonly name: string;
  readonly streams = false;
  readonly mediaFormats: Partial<Record<MediaKind, readonly string[]>>;
  readonly #base: string;
  readonly #headers: Record<string, string>;
  readonly #budgetMs: number;
  readonly #dispatcher: Dispatcher = createUpstreamAgent();

  constructor(options: FalQueueOptions) {
    this.name = options.name;
    this.mediaFormats = options.formats;
    this.#base = validateBaseUrl(options.name, options.baseUrl);
    this.#headers = options.apiKey === undefined ? {} : { authorization: `Key ${options.apiKey}` };
    this.#budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  }

  async startMedia(call: MediaCall): Promise<string> {
    const answer = await postJson({ ...this.#request(call, ''), body: vendorInput(call) }).catch((err: unknown) => {
      throw err instanceof UpstreamError ? new UpstreamError(modelVerdict(err.failure)) : err;
    });
    if (!isRecord(answer) || typeof answer.request_id !== 'string' || answer.request_id === '') {
      throw new UpstreamError({ kind: 'bad_response', message: `${this.name}: the submission has no request_id` });
    }
    return answer.request_id;
  }

  async pollMedia(taskId: string, call: Call): Promise<MediaTaskState> {
    const path = `/requests/${encodeURIComponent(taskId)}`;
    const status = await getJson(this.#request(call, `${path}/status`));
    const state = isRecord(status) ? status.status : undefined;
    if (state === 'IN_QUEUE') return { state: 'running', progress: 0 };
    if (state === 'IN_PROGRESS')
      return {
        state: 'running',
        progress: isRecord(status) && typeof status.progress === 'number' ? status.progress : null,
      };
    if (state !== 'COMPLETED')
      throw new UpstreamError({
        kind: 'bad_response',
        message: `${this.name}: unknown status ${JSON.stringify(state)}`,
      });
    let result: unknown;
    try {
      result = await getJson(this.#request(call, path));
    } catch (err) {
      // The render finished and failed: fal answers a model's error (422, a content-policy refusal among them) or its
      // runner's (500) on the result; any other status (auth, rate limit, gateway) is a failed poll, asked again.
      if (err instanceof UpstreamError && err.failure.kind === 'http' && TASK_FAILURES.has(err.failure.status))
        return { state: 'failed', failure: modelVerdict(err.failure) };
      throw err;
    }
    const outputs = mediaIn(result);
    if (outputs.length === 0)
      return { state: 'failed', failure: { kind: 'bad_response', message: `${this.name}: the result has no media` } };
    return { state: 'completed', outputs };
  }

  close(): Promise<void> {
    return this.#dispatcher.close();
  }

  #request(call: Call, path: string) {
    return {
      dispatcher: this.#dispatcher,
      url: `${this.#base}/${call.upstreamModel}${path}`,
      headers: this.#headers,
      signal: call.signal,
      budgetMs: budgetBefore(this.#budgetMs, call.deadlineAtMs),
    };
  }
}

/**
 * fal's model errors (422, `detail: [{loc, msg, type}]`) are the model's verdict on its input: a content-policy
 * refusal, or else the input itself refused (an aspect ratio, a size, a file type), which no other route would
 * take either (SPEC 7.5 input_rejected). `msg` is written for people: it is the reason shown.
 */
function modelVerdict(failure: UpstreamFailure): UpstreamFailure {
  return failure.kind === 'http' && failure.status === 422 && failure.contentFilter !== true
    ? { ...failure, inputRejected: true }
    : failure;
}

/** The app's input: speech apps read `text`; every kind gets its planned parameters and the container. */
function vendorInput(call: MediaCall): Record<string, unknown> {
  const { input, ...rest } = call.params;
  return { ...(call.kind === 'audio' ? { text: input } : { input }), ...rest, output_format: call.outputFormat };
}

/** Every `{url}` object of the result, top-level or in a top-level list, in order. */
function mediaIn(result: unknown): MediaOutput[] {
  if (!isRecord(result)) return [];
  const file = (value: unknown): MediaOutput[] =>
    isRecord(value) && typeof value.url === 'string'
      ? [{ url: value.url, mimeType: typeof value.content_type === 'string' ? value.content_type : null }]
      : [];
  return Object.values(result).flatMap((value) => (Array.isArray(value) ? value.flatMap(file) : file(value)));
}

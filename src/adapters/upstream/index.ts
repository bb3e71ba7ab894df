/**
 * The upstream port: one vendor endpoint that can serve chat, embeddings, rerank, images, or render media as a task
 * it is polled for (speech, music, video, restoration; SPEC 3.1, 4.1, 4.2, 4.4).
 *
 * Providers speak their vendor's wire format and report every failure as an `UpstreamError` carrying a typed
 * `UpstreamFailure`, so the routing layer can fail over and classify chain exhaustion (SPEC 7.2) without
 * knowing any vendor. Every call takes a CancelSignal: the caller aborts it when the client goes away, and the
 * provider must stop its request at once (`aborted`, never failed over). Time budgets are the provider's own
 * (`budgetMs`, SPEC 8), cut short by the request's deadline, reported as `timeout` so the chain can fail over.
 */
import type { CancelSignal } from '../../lib/cancel-signal.js';

export type UpstreamFailure =
  /**
   * The upstream answered with an HTTP error status. `contentFilter`: it refused on its safety policy;
   * `inputRejected`: the model refused the input itself (its size, aspect, file type), a verdict on the request.
   */
  | {
      kind: 'http';
      status: number;
      message: string;
      retryAfterSec?: number;
      contentFilter?: boolean;
      inputRejected?: boolean;
    }
  /** Could not connect (refused, DNS, or no connection within the connect timeout: 10 s, SPEC 8). */
  | { kind: 'connect'; message: string }
  /** The time budget ran out (SPEC 8: 5 minutes end to end), or a stream went silent past its idle limit. */
  | { kind: 'timeout'; message: string }
  /** The caller aborted (the client went away). Never failed over, never classified. */
  | { kind: 'aborted'; message: string }
  /** 2xx with a body that is not what the wire format promises. */
  | { kind: 'bad_response'; message: string };

export class UpstreamError extends Error {
  constructor(readonly failure: UpstreamFailure) {
    super(failure.message);
    this.name = 'UpstreamError';
  }
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
}

export interface ChatCall {
  /** The model id at this upstream (the route's `model`, not our slug). */
  upstreamModel: string;
  /**
   * The client's chat body, forwarded unchanged but for `model` and `stream` (set by the caller) and its output
   * cap fields, which the provider writes from `maxOutputTokens` in its own wire format.
   */
  body: Record<string, unknown>;
  /** Output tokens per choice the request may produce: always sent, so the hold caps what it can cost (SPEC 4.2). */
  maxOutputTokens: number;
  signal: CancelSignal;
  /** The request's end-to-end deadline (epoch ms, SPEC 8): no call outlives it, whatever its own budget. */
  deadlineAtMs: number;
}

export interface ChatResult {
  /** The upstream's chat completion JSON, as received. */
  completion: Record<string, unknown>;
  /** From the completion's `usage`; null when the upstream sent none. */
  usage: Usage | null;
  /** Whether the upstream billed cached input at a discount (SPEC 2.6). */
  cachedDiscountApplied: boolean;
}

/** One Server-Sent Event of a chat stream: the text after `data: `, exactly as the upstream sent it. */
export interface StreamEvent {
  data: string;
}

export interface ChatStream {
  /**
   * The upstream's events in order, `[DONE]` excluded. The iterator ends normally only when the upstream sent
   * `data: [DONE]`; any other end (connection closed, idle timeout, abort) throws an UpstreamError.
   */
  events: AsyncIterable<StreamEvent>;
}

/** One embedding input: text, or the token ids of a model whose vocabulary the caller used (SPEC 2.1). */
export type EmbeddingInput = string | number[];

export interface EmbeddingCall {
  upstreamModel: string;
  input: EmbeddingInput[];
  dimensions?: number;
  user?: string;
  signal: CancelSignal;
  deadlineAtMs: number;
}

export interface EmbeddingResult {
  /** One float vector per input, in input order. */
  vectors: number[][];
  /** Input tokens as the upstream counted them; null when it did not say. */
  promptTokens: number | null;
}

export interface RerankCall {
  upstreamModel: string;
  query: string;
  documents: string[];
  topN?: number;
  signal: CancelSignal;
  deadlineAtMs: number;
}

export interface RerankResult {
  /** Every scored document (index into `documents`, score), in any order; the caller sorts and cuts. */
  results: { index: number; relevanceScore: number }[];
  promptTokens: number | null;
}

export interface ImageCall {
  upstreamModel: string;
  prompt: string;
  n: number;
  /** The pixels to deliver (SPEC 2.11: never smaller than asked). */
  width: number;
  height: number;
  /** The aspect ratio the request resolved to, for vendors that take ratios; null for pixel-size models. */
  aspectRatio: string | null;
  quality?: string;
  /** Reference images (edit mode), hosted by us: their bytes and a link to them, for vendors that want either. */
  references: { bytes: Buffer; mimeType: string; url: string }[];
  signal: CancelSignal;
  deadlineAtMs: number;
}

export interface ImageResult {
  /** Each image as the upstream delivered it (PNG unless `mimeType` says otherwise). */
  images: { bytes: Buffer; mimeType: string }[];
}

/** The media rendered as a task (SPEC 3.1): what a job of that kind asks an upstream for. */
export type MediaKind = 'audio' | 'music' | 'video' | 'restoration';

/** One render to start: the kind's parameters as planned (the provider maps them to its vendor's fields). */
export interface MediaCall {
  kind: MediaKind;
  upstreamModel: string;
  /** The container asked for (`wav`, `mp3`, `mp4`, …): one of the provider's `mediaFormats` of the kind. */
  outputFormat: string;
  /** The planned parameters: `input` and `voice` for speech, `prompt` and `duration` for music, … */
  params: Record<string, unknown>;
  signal: CancelSignal;
  deadlineAtMs: number;
}

/** One output of a finished render: its bytes here, or a link of the vendor's to fetch them from. */
export type MediaOutput = { bytes: Buffer; mimeType: string | null } | { url: string; mimeType: string | null };

export type MediaTaskState =
  | { state: 'running'; progress: number | null }
  | { state: 'completed'; outputs: MediaOutput[] }
  /** The render failed at the upstream: `failure.contentFilter` when it refused on content policy. */
  | { state: 'failed'; failure: UpstreamFailure };

export interface UpstreamProvider {
  /** The provider's name in the upstreams file. */
  readonly name: string;
  /** Whether it can stream chat (SPEC 7.2 no_streaming_upstream). */
  readonly streams: boolean;
  chat?(call: ChatCall): Promise<ChatResult>;
  /** Resolves once the upstream accepted the request (2xx headers); fails with UpstreamError otherwise. */
  chatStream?(call: ChatCall): Promise<ChatStream>;
  embed?(call: EmbeddingCall): Promise<EmbeddingResult>;
  rerank?(call: RerankCall): Promise<RerankResult>;
  image?(call: ImageCall): Promise<ImageResult>;
  /** The containers it can deliver, per media kind it renders; a kind absent here is not served. */
  readonly mediaFormats?: Partial<Record<MediaKind, readonly string[]>>;
  /** Starts a render; answers the upstream's task id, kept in the job's record so any process can poll it. */
  startMedia?(call: MediaCall): Promise<string>;
  /** Where a render stands. Fails with UpstreamError when the upstream cannot be asked (the poll is retried). */
  pollMedia?(
    taskId: string,
    call: { upstreamModel: string; signal: CancelSignal; deadlineAtMs: number },
  ): Promise<MediaTaskState>;
  close?(): Promise<void>;
}

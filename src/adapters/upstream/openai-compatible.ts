/**
 * The OpenAI-compatible upstream (DESIGN 7, the Portkey model: one base that OpenAI-style vendors and
 * self-hosted vLLM or Ollama share). Chat bodies are forwarded unchanged but for `model` and `stream`
 * (SPEC 4.2); stream events are passed on exactly as sent (SPEC 6.2) and a stream counts as complete only
 * when the upstream sent `[DONE]` (DESIGN 8: a cut stream must never look like a clean end).
 */
import type { Dispatcher } from 'undici';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import { copyWith } from '../../lib/copy-with.js';
import { isRecord } from '../../lib/is-record.js';
import {
  authHeaders,
  budgetBefore,
  type CallScope,
  createUpstreamAgent,
  DEFAULT_BUDGET_MS,
  openEventStream,
  postJson,
  type ResponseBody,
  type UpstreamPost,
  validateBaseUrl,
} from '../../lib/outbound-http.js';
import {
  type ChatCall,
  type ChatResult,
  type ChatStream,
  type EmbeddingCall,
  type EmbeddingResult,
  type StreamEvent,
  UpstreamError,
  type UpstreamProvider,
} from './index.js';
import { parseOpenAiUsage, tokenCount } from './openai-usage.js';
import { SseParser } from './sse-parser.js';

/** A stream silent this long after it was accepted is a `timeout` (SPEC 3.4: a silent upstream fails over). */
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
/** After `[DONE]`, the rest of the body (normally just the chunked terminator) is read this long so the socket can be reused. */
const DRAIN_AFTER_DONE_MS = 1_000;
const DRAIN_AFTER_DONE_BYTES = 64 * 1024;

export interface OpenAiCompatibleOptions {
  name: string;
  baseUrl: string;
  apiKey?: string;
  /** Whether this upstream may serve `stream: true` (SPEC 7.2 no_streaming_upstream). Default true. */
  streams?: boolean;
  /** SPEC 8: 5 minutes by default. For streams it covers the opening; the idle limit governs afterwards. */
  budgetMs?: number;
  idleTimeoutMs?: number;
  headers?: Record<string, string>;
  /**
   * The field the output cap is sent in: `max_completion_tokens` (OpenAI's current name, which its reasoning models
   * require and vLLM accepts) or `max_tokens` (for servers that know only the older name).
   */
  outputCapField?: OutputCapField;
  /** A dispatcher shared with other providers (not closed by `close()`); by default the provider owns one. */
  dispatcher?: Dispatcher;
}

export type OutputCapField = 'max_completion_tokens' | 'max_tokens';

export class OpenAiCompatibleProvider implements UpstreamProvider {
  readonly name: string;
  readonly streams: boolean;
  readonly #baseUrl: string;
  readonly #headers: Record<string, string>;
  readonly #budgetMs: number;
  readonly #idleTimeoutMs: number;
  readonly #outputCapField: OutputCapField;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;

  constructor(options: OpenAiCompatibleOptions) {
    this.name = options.name;
    this.streams = options.streams ?? true;
    this.#baseUrl = validateBaseUrl(options.name, options.baseUrl);
    this.#headers = authHeaders(options.apiKey, options.headers);
    this.#budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
    this.#idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    this.#outputCapField = options.outputCapField ?? 'max_completion_tokens';
    this.#ownsDispatcher = options.dispatcher === undefined;
    this.#dispatcher = options.dispatcher ?? createUpstreamAgent();
  }

  async chat(call: ChatCall): Promise<ChatResult> {
    const completion = await postJson(this.#post('/chat/completions', this.#chatBody(call, false), call));
    if (!isRecord(completion) || !Array.isArray(completion.choices)) {
      throw new UpstreamError({ kind: 'bad_response', message: `not a chat completion: ${describe(completion)}` });
    }
    const usage = parseOpenAiUsage(completion.usage);
    // SPEC 2.6: the vendor discounted cached input whenever it reports cached tokens.
    return { completion, usage, cachedDiscountApplied: (usage?.cachedTokens ?? 0) > 0 };
  }

  async chatStream(call: ChatCall): Promise<ChatStream> {
    if (!this.streams)
      throw new Error(`upstream ${this.name} is configured without streaming; routing must not stream through it`);
    const { body, scope } = await openEventStream(this.#post('/chat/completions', this.#chatBody(call, true), call));
    return { events: chatEvents(body, scope, this.#idleTimeoutMs) };
  }

  async embed(call: EmbeddingCall): Promise<EmbeddingResult> {
    const body: Record<string, unknown> = { model: call.upstreamModel, input: call.input, encoding_format: 'float' };
    if (call.dimensions !== undefined) body.dimensions = call.dimensions;
    if (call.user !== undefined) body.user = call.user;
    const json = await postJson(this.#post('/embeddings', body, call));
    return parseEmbeddings(json, call.input.length);
  }

  async close(): Promise<void> {
    if (this.#ownsDispatcher) await this.#dispatcher.close();
  }

  #chatBody(call: ChatCall, stream: boolean): Record<string, unknown> {
    return copyWith(call.body, { model: call.upstreamModel, stream, [this.#outputCapField]: call.maxOutputTokens });
  }

  #post(path: string, body: unknown, call: { signal: CancelSignal; deadlineAtMs: number }): UpstreamPost {
    const budgetMs = budgetBefore(this.#budgetMs, call.deadlineAtMs);
    return {
      dispatcher: this.#dispatcher,
      url: `${this.#baseUrl}${path}`,
      headers: this.#headers,
      body,
      signal: call.signal,
      budgetMs,
    };
  }
}

/** `data[i].embedding` ordered by `index` (vendors may answer out of order); one vector per input or bad_response. */
function parseEmbeddings(json: unknown, inputCount: number): EmbeddingResult {
  const data = isRecord(json) ? json.data : undefined;
  if (!Array.isArray(data) || data.length !== inputCount) {
    throw new UpstreamError({
      kind: 'bad_response',
      message: `expected ${inputCount} embeddings, got ${describe(json)}`,
    });
  }
  const vectors: number[][] = new Array<number[]>(inputCount);
  data.forEach((item: unknown, position) => {
    const index = isRecord(item) && item.index !== undefined ? item.index : position;
    const embedding = isRecord(item) ? item.embedding : undefined;
    if (
      typeof index !== 'number' ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= inputCount ||
      vectors[index] !== undefined
    ) {
      throw new UpstreamError({
        kind: 'bad_response',
        message: `embedding with a missing, repeated or out-of-range index ${String(index)}`,
      });
    }
    if (!Array.isArray(embedding) || !embedding.every((x: unknown) => typeof x === 'number')) {
      throw new UpstreamError({ kind: 'bad_response', message: `embedding ${index} is not a float vector` });
    }
    vectors[index] = embedding as number[];
  });
  const usage = isRecord(json) ? json.usage : undefined;
  return { vectors, promptTokens: isRecord(usage) ? tokenCount(usage.prompt_tokens) : null };
}

function describe(json: unknown): string {
  if (isRecord(json) && isRecord(json.error) && typeof json.error.message === 'string')
    return `error ${json.error.message}`;
  const text = JSON.stringify(json) ?? String(json);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * The stream's data payloads up to `[DONE]`. The idle clock runs only while we wait for the upstream, not
 * while the consumer handles an event, so a slow client is not mistaken for a silent upstream. Whatever ends
 * the iteration (`[DONE]`, an error, or the consumer's early `return()`) releases the socket and the timers.
 */
function chatEvents(body: ResponseBody, scope: CallScope, idleMs: number): AsyncIterable<StreamEvent> {
  const chunks = (body as AsyncIterable<Buffer>)[Symbol.asyncIterator]();
  // From the opening on: a stream nobody ever reads still lets go of its socket after the idle limit.
  scope.armIdle(idleMs);
  let released = false;
  const release = (completed: boolean): void => {
    if (released) return;
    released = true;
    if (completed) {
      scope.dispose();
      void drainForReuse(chunks, body);
      return;
    }
    // Aborting the request closes the socket (a half-read HTTP/1.1 response cannot be reused) and ends a
    // read still pending as `aborted`; when a failure came first, that one stays recorded.
    scope.fail({ kind: 'aborted', message: 'the consumer stopped reading the stream' });
    body.destroy();
  };

  const generator = readEvents(chunks, scope, idleMs, release);
  const iterator: AsyncIterableIterator<StreamEvent, void, undefined> = {
    next: () => generator.next(),
    // Release first: a generator not yet started skips its `finally` on return(), and one waiting for the
    // upstream would run it only once the upstream spoke again.
    return: async () => {
      release(false);
      return generator.return();
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/**
 * chatEvents' reading loop. A module-level function, not a closure: each closure of a generator function has a
 * prototype object of its own, and V8 built hidden classes and prototype bookkeeping for it on every stream.
 */
async function* readEvents(
  chunks: AsyncIterator<Buffer>,
  scope: CallScope,
  idleMs: number,
  release: (completed: boolean) => void,
): AsyncGenerator<StreamEvent, void, undefined> {
  const parser = new SseParser();
  let completed = false;
  try {
    for (;;) {
      scope.armIdle(idleMs);
      const step = await chunks.next();
      scope.disarmIdle();
      for (const data of step.done === true ? parser.end() : parser.push(step.value)) {
        if (data === '[DONE]') {
          completed = true;
          return;
        }
        // One read can bring many events: a caller that left while the consumer handled the last one gets none of
        // the rest (the port: the provider stops at once, `aborted`), as the sandbox does.
        if (scope.failure !== null) throw new UpstreamError(scope.failure);
        yield { data };
      }
      if (step.done === true)
        throw new UpstreamError({ kind: 'bad_response', message: 'the upstream ended the stream without [DONE]' });
    }
  } catch (error) {
    throw scope.errorFrom(error, 'body');
  } finally {
    release(completed);
  }
}

/** Reads the little that follows `[DONE]` so the keep-alive socket returns to the pool; bounded in time and size. */
async function drainForReuse(chunks: AsyncIterator<Buffer>, body: ResponseBody): Promise<void> {
  const timer = setTimeout(() => body.destroy(), DRAIN_AFTER_DONE_MS).unref();
  let bytes = 0;
  try {
    for (let step = await chunks.next(); step.done !== true; step = await chunks.next()) {
      bytes += step.value.length;
      if (bytes > DRAIN_AFTER_DONE_BYTES) {
        body.destroy();
        return;
      }
    }
  } catch {
    // The socket is gone either way; the stream was already complete.
  } finally {
    clearTimeout(timer);
  }
}

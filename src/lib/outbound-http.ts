/**
 * Shared undici plumbing for the HTTP upstream providers: a keep-alive agent, a per-call scope that tells a
 * caller's abort from our own time budget, one POST helper for JSON and one for event streams, and the mapping
 * of every failure to an `UpstreamError` (src/adapters/upstream/index.ts), so routing can fail over and
 * classify chain exhaustion (SPEC 7.2) without knowing undici.
 *
 * Every response body is consumed or destroyed on every path: an unread body pins its socket, and a pool of
 * pinned sockets stalls every later request to that vendor.
 */
import { Agent, type Dispatcher } from 'undici';
import { UpstreamError, type UpstreamFailure } from '../adapters/upstream/index.js';
import { Canceller, type CancelSignal } from './cancel-signal.js';
import { isRecord } from './is-record.js';
import { readUpTo } from './read-up-to.js';

/** SPEC 8: a connect failure fast-fails at 10 s instead of eating the 5-minute budget. */
export const CONNECT_TIMEOUT_MS = 10_000;
/** SPEC 8: the upstream time budget is 5 minutes end to end. */
export const DEFAULT_BUDGET_MS = 300_000;
/** Error bodies are read only this far: enough for any vendor's message, bounded against a hostile one. */
const ERROR_BODY_LIMIT_BYTES = 64 * 1024;
/** Larger than any real 2xx JSON answer (2,048 embeddings of 3,072 floats are about 90 MB): past it, a broken upstream. */
const JSON_BODY_LIMIT_BYTES = 128 * 1024 * 1024;
const EXCERPT_CHARS = 200;

export type ResponseBody = Dispatcher.ResponseData['body'];

/**
 * A keep-alive agent (one connection pool per origin). undici's own header and body timeouts are off: the
 * CallScope enforces the budget and the stream idle limit, so that each ends as the right failure kind.
 * `connectionsPerOrigin` defaults to unlimited; tests set 1 to prove that sockets are released.
 */
export function createUpstreamAgent(options: { connectionsPerOrigin?: number } = {}): Agent {
  return new Agent({
    connect: { timeout: CONNECT_TIMEOUT_MS },
    keepAliveTimeout: 10_000,
    keepAliveMaxTimeout: 60_000,
    connections: options.connectionsPerOrigin ?? null,
    headersTimeout: 0,
    bodyTimeout: 0,
  });
}

/**
 * The life of one upstream call. The caller's signal means "the client went away" (`aborted`, never failed
 * over); the budget timer and the idle timer are ours (`timeout`, failed over). Both abort one internal
 * controller, and the first failure recorded wins, so an error surfacing later from undici is reported as
 * what actually caused it.
 */
export class CallScope {
  readonly #controller = new Canceller();
  readonly #callerSignal: CancelSignal;
  readonly #onCallerAbort = () => this.fail({ kind: 'aborted', message: 'the caller aborted the upstream request' });
  #budgetTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;
  #failure: UpstreamFailure | null = null;

  constructor(callerSignal: CancelSignal, budgetMs: number) {
    this.#callerSignal = callerSignal;
    if (callerSignal.aborted) {
      this.#onCallerAbort();
      return;
    }
    callerSignal.addEventListener('abort', this.#onCallerAbort, { once: true });
    this.#budgetTimer = setTimeout(
      () => this.fail({ kind: 'timeout', message: `the upstream did not answer within the ${budgetMs} ms budget` }),
      budgetMs,
    );
  }

  /** The signal handed to undici. */
  get signal(): CancelSignal {
    return this.#controller;
  }

  get failure(): UpstreamFailure | null {
    return this.#failure;
  }

  /** Records the failure (the first one wins) and aborts the request, which also destroys its body. */
  fail(failure: UpstreamFailure): void {
    if (this.#failure !== null) return;
    this.#failure = failure;
    this.dispose();
    this.#controller.abort(new UpstreamError(failure));
  }

  /** Streams: the budget covers the opening; afterwards the idle limit governs (SPEC 7.2 upstream_timeout). */
  endBudget(): void {
    clearTimeout(this.#budgetTimer);
  }

  /** Starts the idle clock while we wait for the upstream's next bytes. */
  armIdle(idleMs: number): void {
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(
      () => this.fail({ kind: 'timeout', message: `the upstream stream was silent for ${idleMs} ms` }),
      idleMs,
    );
  }

  disarmIdle(): void {
    clearTimeout(this.#idleTimer);
  }

  /** Clears the timers and stops listening to the caller; the request itself is left as it is. */
  dispose(): void {
    clearTimeout(this.#budgetTimer);
    clearTimeout(this.#idleTimer);
    this.#callerSignal.removeEventListener('abort', this.#onCallerAbort);
  }

  /** The UpstreamError for an error thrown while sending (`request`) or while reading a 2xx body (`body`). */
  errorFrom(error: unknown, phase: 'request' | 'body'): UpstreamError {
    if (this.#failure !== null) return new UpstreamError(this.#failure);
    if (error instanceof UpstreamError) return error;
    return new UpstreamError(transportFailure(error, phase));
  }
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);
const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/**
 * Classifies a transport error that neither the caller nor our timers caused. Before a response, any socket
 * error (refused, DNS, connect timeout, reset before the headers) means the upstream never answered: `connect`,
 * so routing fails over. After 2xx headers, a broken body is a `bad_response`: the wire format was not kept.
 */
export function transportFailure(error: unknown, phase: 'request' | 'body'): UpstreamFailure {
  const code = errorCode(error);
  const detail = `${error instanceof Error ? error.message : String(error)}${code === undefined ? '' : ` (${code})`}`;
  if (code !== undefined && TIMEOUT_CODES.has(code))
    return { kind: 'timeout', message: `upstream timed out: ${detail}` };
  if (phase === 'body') return { kind: 'bad_response', message: `the upstream response broke off: ${detail}` };
  if (code !== undefined && CONNECT_CODES.has(code))
    return { kind: 'connect', message: `could not connect to the upstream: ${detail}` };
  return { kind: 'connect', message: `the upstream closed the connection before answering: ${detail}` };
}

/** The error's code, looking through `cause` and AggregateError (Node's happy-eyeballs connect). */
function errorCode(error: unknown, depth = 0): string | undefined {
  if (!(error instanceof Error) || depth > 3) return undefined;
  const code = (error as Error & { code?: unknown }).code;
  if (typeof code === 'string') return code;
  if (error instanceof AggregateError) return errorCode(error.errors[0], depth + 1);
  return errorCode(error.cause, depth + 1);
}

/** A call's budget: the provider's own, or what is left before the request's deadline if that is sooner. */
export function budgetBefore(budgetMs: number, deadlineAtMs: number): number {
  return Math.max(0, Math.min(budgetMs, deadlineAtMs - Date.now()));
}

export interface UpstreamPost {
  dispatcher: Dispatcher;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: CancelSignal;
  budgetMs: number;
  /** The largest 2xx body read (default JSON_BODY_LIMIT_BYTES); a larger one is a `bad_response`. */
  maxBodyBytes?: number;
}

/** GETs a JSON resource (a task's status or result): the parsed 2xx body; every failure is an UpstreamError. */
export function getJson(get: Omit<UpstreamPost, 'body'>): Promise<unknown> {
  return postJson({ ...get, body: undefined });
}

/** POSTs JSON (GETs when `body` is undefined) and returns the parsed 2xx JSON body; every failure is an UpstreamError. */
export async function postJson(post: UpstreamPost): Promise<unknown> {
  const scope = new CallScope(post.signal, post.budgetMs);
  try {
    const response = await send(post, scope, 'application/json');
    let text: string;
    try {
      text = await readBounded(response.body, post.maxBodyBytes ?? JSON_BODY_LIMIT_BYTES);
    } catch (error) {
      throw scope.errorFrom(error, 'body');
    }
    const json = tryParse(text);
    if (json === undefined)
      throw new UpstreamError({
        kind: 'bad_response',
        message: `the upstream answered 2xx with a body that is not JSON: ${excerpt(text)}`,
      });
    return json;
  } finally {
    scope.dispose();
  }
}

/**
 * POSTs JSON and resolves once the upstream accepted with 2xx headers that are not a JSON body. The caller
 * owns the returned body and scope: it must consume or destroy the body and dispose the scope.
 */
export async function openEventStream(post: UpstreamPost): Promise<{ body: ResponseBody; scope: CallScope }> {
  const scope = new CallScope(post.signal, post.budgetMs);
  try {
    const response = await send(post, scope, 'text/event-stream');
    if (isJsonContentType(response.headers['content-type'])) {
      const text = await readCapped(response.body, scope);
      throw new UpstreamError({
        kind: 'bad_response',
        message: `expected an event stream, got JSON: ${errorMessageOf(tryParse(text)) ?? excerpt(text)}`,
      });
    }
    scope.endBudget();
    return { body: response.body, scope };
  } catch (error) {
    scope.dispose();
    throw error;
  }
}

async function send(post: UpstreamPost, scope: CallScope, accept: string): Promise<Dispatcher.ResponseData> {
  if (scope.failure !== null) throw new UpstreamError(scope.failure);
  let response: Dispatcher.ResponseData;
  try {
    // The dispatcher's own request(), not undici's request(url, options): that one spreads the options into an
    // object with new keys, which gives every call a hidden class of its own (src/copy-with.ts).
    const { origin, pathname, search } = new URL(post.url);
    response = await post.dispatcher.request({
      origin,
      path: pathname + search,
      ...(post.body === undefined
        ? { method: 'GET', headers: { accept, ...post.headers } }
        : {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept, ...post.headers },
            body: JSON.stringify(post.body),
          }),
      signal: scope.signal,
    });
  } catch (error) {
    throw scope.errorFrom(error, 'request');
  }
  if (response.statusCode >= 200 && response.statusCode < 300) return response;
  const text = await readCapped(response.body, scope);
  throw new UpstreamError(httpFailure(response.statusCode, response.headers, text));
}

/** The body as text, up to `limit` bytes (see read-up-to.ts). */
async function textUpTo(
  body: ResponseBody,
  limit: number,
  keepOnBreak = false,
): Promise<{ text: string; cut: boolean }> {
  const { bytes, cut } = await readUpTo(body, limit, keepOnBreak);
  return { text: bytes.toString('utf8'), cut };
}

/** A 2xx body whole, or a `bad_response` as soon as it passes `limit` bytes. */
async function readBounded(body: ResponseBody, limit: number): Promise<string> {
  const { text, cut } = await textUpTo(body, limit);
  if (cut)
    throw new UpstreamError({ kind: 'bad_response', message: `the upstream's answer is larger than ${limit} bytes` });
  return text;
}

/** An error body's first ERROR_BODY_LIMIT_BYTES or so, the rest destroyed. A caller abort or timeout meanwhile wins. */
async function readCapped(body: ResponseBody, scope: CallScope): Promise<string> {
  // A broken error body still leaves the status (and what had arrived) to report; only a caller abort or timeout outranks it.
  const { text } = await textUpTo(body, ERROR_BODY_LIMIT_BYTES, true);
  if (scope.failure !== null) throw new UpstreamError(scope.failure);
  return text;
}

function isJsonContentType(value: string | string[] | undefined): boolean {
  const type = Array.isArray(value) ? value[0] : value;
  return type !== undefined && /^application\/(?:[\w.+-]+\+)?json\b/i.test(type.trim());
}

type Headers = Record<string, string | string[] | undefined>;
type HttpFailure = Extract<UpstreamFailure, { kind: 'http' }>;

/** An HTTP error status as an UpstreamFailure: the vendor's message, Retry-After, its content-filter verdict. */
export function httpFailure(status: number, headers: Headers, text: string): HttpFailure {
  const json = tryParse(text);
  const failure: HttpFailure = {
    kind: 'http',
    status,
    message: errorMessageOf(json) ?? (excerpt(text) || `HTTP ${status}`),
  };
  const retryAfterSec = retryAfterSeconds(headers) ?? retryAfterInBody(json);
  if (retryAfterSec !== undefined) failure.retryAfterSec = retryAfterSec;
  if (saysContentFilter(json)) failure.contentFilter = true;
  return failure;
}

/** OpenAI-style `error.message`, a bare `error` string (Ollama, TEI), or a top-level `message` (Cohere). */
function errorMessageOf(json: unknown): string | undefined {
  if (!isRecord(json)) return undefined;
  const { error } = json;
  if (isRecord(error) && typeof error.message === 'string') return error.message;
  if (typeof error === 'string') return error;
  if (typeof json.message === 'string') return json.message;
  if (typeof json.detail === 'string') return json.detail;
  if (typeof json.description === 'string') return json.description; // the Telegram Bot API (src/adapters/notifier)
  // fal's model errors: `detail: [{loc, msg, type}]`.
  const first = Array.isArray(json.detail) ? json.detail[0] : undefined;
  return isRecord(first) && typeof first.msg === 'string' ? first.msg : undefined;
}

/** SPEC 7.2 content_filter: OpenAI's and Azure's codes for a refusal on the vendor's safety policy, and fal's detail type. */
function saysContentFilter(json: unknown): boolean {
  if (!isRecord(json)) return false;
  const { error, detail } = json;
  if (Array.isArray(detail)) return detail.some((item) => isRecord(item) && item.type === 'content_policy_violation');
  if (!isRecord(error)) return false;
  return (
    error.code === 'content_filter' || error.code === 'content_policy_violation' || error.type === 'content_filter'
  );
}

/** `Retry-After` as seconds or an HTTP date; OpenAI's `retry-after-ms` when that is all there is. */
function retryAfterSeconds(headers: Headers): number | undefined {
  const value = firstHeader(headers['retry-after']);
  if (value !== undefined && /^\d+$/.test(value)) return Number(value);
  const date = value === undefined ? Number.NaN : Date.parse(value);
  if (Number.isFinite(date)) return Math.max(0, Math.ceil((date - Date.now()) / 1000));
  const ms = firstHeader(headers['retry-after-ms']);
  return ms !== undefined && /^\d+(?:\.\d+)?$/.test(ms) ? Math.ceil(Number(ms) / 1000) : undefined;
}

/** The Telegram Bot API says when to retry in the body (`parameters.retry_after`, seconds), not in a header. */
function retryAfterInBody(json: unknown): number | undefined {
  const seconds = isRecord(json) && isRecord(json.parameters) ? json.parameters.retry_after : undefined;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.ceil(seconds) : undefined;
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return (Array.isArray(value) ? value[0] : value)?.trim();
}

/** The parsed JSON, or undefined (which JSON.parse never returns) when the text is not JSON. */
function tryParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}…` : flat;
}

/**
 * The base URL without trailing slashes, so `${base}/path` is right. Checked at construction (Medusa style,
 * DESIGN 7): a misconfigured upstream fails at boot, not on the first request.
 */
export function validateBaseUrl(providerName: string, baseUrl: string): string {
  if (!URL.canParse(baseUrl))
    throw new Error(`upstream ${providerName}: baseUrl ${JSON.stringify(baseUrl)} is not a URL`);
  if (!/^https?:$/.test(new URL(baseUrl).protocol))
    throw new Error(`upstream ${providerName}: baseUrl must be http or https`);
  return baseUrl.replace(/\/+$/, '');
}

/** Bearer auth when a key is configured, then the provider's extra headers. */
export function authHeaders(apiKey: string | undefined, extra: Record<string, string> = {}): Record<string, string> {
  return apiKey === undefined ? { ...extra } : { authorization: `Bearer ${apiKey}`, ...extra };
}

/**
 * Every failure the SDK reports is a `GatewayError`: the API's own verdicts (SPEC 2.7 native envelope, the
 * OpenAI-shaped compat envelope, the one error frame of a stream) and the ones that never reached an answer
 * (connection lost, aborted, a stream cut short). `code` is the catalog's `error_code`, `requestId` the
 * `X-Request-ID` to quote to support, `retryable` whether the same request may succeed later.
 */
export class GatewayError extends Error {
  override readonly name = 'GatewayError';
  /** HTTP status; 0 when no answer came (connection, abort, a stream cut short). */
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly retryable: boolean;
  /** The envelope's `meta` (hints, fields, limits), when it had one. */
  readonly meta: Readonly<Record<string, unknown>>;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    requestId?: string | undefined;
    retryable: boolean;
    meta?: Record<string, unknown>;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.retryable = init.retryable;
    this.meta = init.meta ?? {};
  }
}

/** A media or chat job that ended `failed`: its `error_code` (SPEC 2.6) and nothing charged for it. */
export class JobFailedError extends GatewayError {
  readonly jobId: string;
  constructor(jobId: string, code: string, message: string) {
    super({ status: 0, code, message, retryable: code === 'generation_failed' });
    this.jobId = jobId;
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Statuses the service may answer differently later, when it sent no `x-should-retry` of its own. */
const retryableStatus = (status: number) => status === 408 || status === 409 || status === 429 || status >= 500;

/** Reads whichever envelope the body is (native or compat) together with the response's headers. */
export function errorFromResponse(response: Response, body: unknown): GatewayError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const hint = response.headers.get('x-should-retry');
  const retryable = hint === null ? retryableStatus(response.status) : hint === 'true';
  const base = { status: response.status, retryable };
  if (isRecord(body) && isRecord(body['data']) && typeof body['data']['error_code'] === 'string') {
    const data = body['data'];
    const meta = isRecord(data['meta']) ? data['meta'] : {};
    return new GatewayError({
      ...base,
      code: data['error_code'] as string,
      message: typeof data['error'] === 'string' ? data['error'] : String(data['error_code']),
      requestId: typeof meta['request_id'] === 'string' ? meta['request_id'] : requestId,
      meta,
    });
  }
  if (isRecord(body) && isRecord(body['error'])) {
    const error = body['error'];
    const code = typeof error['code'] === 'string' ? error['code'] : String(error['type'] ?? 'error');
    return new GatewayError({ ...base, code, message: String(error['message'] ?? code), requestId });
  }
  const text = typeof body === 'string' && body.length > 0 ? body.slice(0, 200) : `HTTP ${response.status}`;
  return new GatewayError({ ...base, code: `http_${response.status}`, message: text, requestId });
}

/** A request that got no answer: `aborted` when the caller's signal fired, `connection_error` otherwise. */
export function errorFromFailure(cause: unknown, signal?: AbortSignal | null): GatewayError {
  if (cause instanceof GatewayError) return cause;
  const aborted = signal?.aborted === true || (cause instanceof Error && cause.name === 'AbortError');
  return new GatewayError({
    status: 0,
    code: aborted ? 'aborted' : 'connection_error',
    message: aborted ? 'the request was aborted' : `no answer from the service: ${String(cause)}`,
    retryable: !aborted,
    cause,
  });
}

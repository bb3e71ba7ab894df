import type { components } from '../../generated/openapi.js';
import type { ApiError } from './api-error.js';
import { ERROR_CATALOG, russianMessage } from './catalog.js';

export type Envelope = 'compat' | 'native';
type CompatError = components['schemas']['CompatError'];
type NativeError = components['schemas']['NativeError'];

/**
 * DESIGN.md 3: `/v1/compat/*` and `/v1/responses` answer in the compat envelope, every other path in the
 * native one. Each operation's `x-envelope` states the same (a contract test holds the two together); the
 * path rule also covers answers given before any operation matched (404, 413, malformed JSON).
 */
export function envelopeForPath(path: string): Envelope {
  return path.startsWith('/v1/compat/') ||
    path === '/v1/compat' ||
    path === '/v1/responses' ||
    path.startsWith('/v1/responses/')
    ? 'compat'
    : 'native';
}

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: CompatError | NativeError;
}

/** The only place that builds an error envelope (SPEC 2.7). */
export function renderError(envelope: Envelope, error: ApiError, requestId: string): RenderedError {
  const spec = ERROR_CATALOG[error.code];
  // The catalog says whether retrying can help; an error that knows better (a conflict still in flight) says so itself.
  const headers = { 'x-should-retry': String(spec.retryable), ...error.headers };
  if (envelope === 'compat') {
    const body: CompatError = {
      error: {
        message: error.message,
        type: spec.type,
        code: error.code,
        param: error.param,
        ...(error.meta ? { meta: error.meta } : {}),
      },
      status_code: error.status,
      request_id: requestId,
    };
    return { status: error.status, headers, body };
  }
  const body: NativeError = {
    exception: error.status,
    data: { error: error.message, error_code: error.code, meta: { ...error.meta, request_id: requestId } },
    message: russianMessage(error.status),
  };
  return { status: error.status, headers, body };
}

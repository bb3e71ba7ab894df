import type { components } from '../../../generated/openapi.js';
import { UpstreamError } from '../../adapters/upstream/index.js';

type StreamError = components['schemas']['StreamError'];

/**
 * SPEC 6.2: what a stream that had opened says when it fails; its type/code follow the upstream's status —
 * 400 → invalid_request_error / invalid_request; 404 → model_not_found; 429 → rate_limit_error /
 * rate_limit_exceeded; anything else api_error / upstream_error. Nothing else from the upstream body is forwarded.
 */
export function streamError(err: unknown): StreamError {
  const status = err instanceof UpstreamError && err.failure.kind === 'http' ? err.failure.status : undefined;
  if (status === 400) return error('The upstream rejected the request', 'invalid_request_error', 'invalid_request');
  if (status === 404) return error('The upstream does not know this model', 'invalid_request_error', 'model_not_found');
  if (status === 429) return error('The upstream is rate-limiting', 'rate_limit_error', 'rate_limit_exceeded');
  return error('The upstream failed mid-stream; the answer is incomplete and was not billed', 'api_error', 'upstream_error');
}

/** SPEC 3.4: every upstream accepted the stream and closed it without a token; nothing was billed. */
export function emptyStreamError(): StreamError {
  return error('Every upstream closed the stream without a token; nothing was billed. Retry, or send stream: false', 'api_error', 'empty_upstream_stream');
}

function error(message: string, type: StreamError['type'], code: StreamError['code']): StreamError {
  return { message, type, code };
}

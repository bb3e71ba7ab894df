import type { components } from '../../../generated/openapi.js';
import { UpstreamError, type UpstreamFailure } from '../../adapters/upstream/index.js';

type StreamError = components['schemas']['StreamError'];

/**
 * SPEC 6.2: what a stream that had opened says when it fails; its type/code follow the upstream's status —
 * 400 → invalid_request_error / invalid_request; 404 → model_not_found; 429 → rate_limit_error /
 * rate_limit_exceeded; anything else api_error / upstream_error. Nothing else from the upstream body is forwarded.
 */
export function streamError(err: unknown): StreamError {
  const status = err instanceof UpstreamError ? statusOf(err.failure) : undefined;
  return (
    byStatus([status]) ??
    error('The upstream failed mid-stream; the answer is incomplete and was not billed', 'api_error', 'upstream_error')
  );
}

/**
 * SPEC 6.2 for a stream whose every route failed before its first token (issue 24 item 7): the status they all
 * answered sets the frame as above; every route a 5xx → `upstream_server_error` (6.2's other upstream-failure
 * code, 7.2's name for it); any other mix, timeouts and refused connections → `upstream_error`.
 */
export function openingStreamError(failures: readonly UpstreamFailure[]): StreamError {
  const statuses = failures.map(statusOf);
  const frame = byStatus(statuses);
  if (frame !== null) return frame;
  if (statuses.every((status) => status !== undefined && status >= 500)) {
    return error(
      'Every upstream failed with a server error before the first token; nothing was billed',
      'api_error',
      'upstream_server_error',
    );
  }
  return error('Every upstream failed before the first token; nothing was billed', 'api_error', 'upstream_error');
}

/** SPEC 3.4: every upstream accepted the stream and closed it without a token; nothing was billed. */
export function emptyStreamError(): StreamError {
  return error(
    'Every upstream closed the stream without a token; nothing was billed. Retry, or send stream: false',
    'api_error',
    'empty_upstream_stream',
  );
}

function statusOf(failure: UpstreamFailure): number | undefined {
  return failure.kind === 'http' ? failure.status : undefined;
}

/** The frame of the one status every failure shares, when 6.2 names it; null otherwise. */
function byStatus(statuses: readonly (number | undefined)[]): StreamError | null {
  const [status] = statuses;
  if (!statuses.every((s) => s === status)) return null;
  if (status === 400) return error('The upstream rejected the request', 'invalid_request_error', 'invalid_request');
  if (status === 404) return error('The upstream does not know this model', 'invalid_request_error', 'model_not_found');
  if (status === 429) return error('The upstream is rate-limiting', 'rate_limit_error', 'rate_limit_exceeded');
  return null;
}

function error(message: string, type: StreamError['type'], code: StreamError['code']): StreamError {
  return { message, type, code };
}

import type { UpstreamFailure } from '../../adapters/upstream/index.js';
import type { ErrorCode } from '../../errors/catalog.js';

/** An upstream refusal on its safety policy: a verdict on the content, not on the upstream. */
export function isContentFilter(failure: UpstreamFailure): boolean {
  return failure.kind === 'http' && failure.contentFilter === true;
}

/** A model's refusal of the input itself (SPEC 7.5 input_rejected): a verdict on the request, not on the upstream. */
export function isInputRejection(failure: UpstreamFailure): boolean {
  return failure.kind === 'http' && failure.inputRejected === true;
}

/**
 * Whether the next route may be tried after this failure (SPEC 4.2: transient failures walk the chain).
 * Not after `aborted`: the client left, nobody is waiting for an answer. Not after a content filter: SPEC 7.5, a
 * verdict on the content is not re-routed (another vendor's looser policy is not a way around it).
 */
export function isFailoverable(failure: UpstreamFailure): boolean {
  return failure.kind !== 'aborted' && !isContentFilter(failure);
}

const isHttp = (f: UpstreamFailure, test: (status: number) => boolean): boolean => f.kind === 'http' && test(f.status);
const is429 = (f: UpstreamFailure) => isHttp(f, (s) => s === 429);
const is5xx = (f: UpstreamFailure) => isHttp(f, (s) => s >= 500 && s <= 599);
const isOther4xx = (f: UpstreamFailure) => isHttp(f, (s) => s >= 400 && s <= 499 && s !== 429);

/**
 * The SPEC 7.2 code for a chain that ran out of routes, from the failure of every attempted route, in order.
 * Precondition: at least one failure, none `aborted` (runChain rethrows those before classifying).
 */
export function classifyExhaustion(failures: readonly UpstreamFailure[]): ErrorCode {
  if (failures.length === 0) throw new RangeError('classifyExhaustion: no failures to classify');
  const all = (test: (f: UpstreamFailure) => boolean) => failures.every(test);
  // content_filter 400: "Upstream blocked content under its safety policy" (one refusal is the verdict).
  if (failures.some(isContentFilter)) return 'content_filter';
  // upstream_rate_limit 429: "Every upstream currently rate-limited".
  if (all(is429)) return 'upstream_rate_limit';
  // upstream_timeout 504: "Upstream exceeded the 5-minute budget or the edge closed the connection".
  if (all((f) => f.kind === 'timeout')) return 'upstream_timeout';
  // upstream_bad_response 502: "All eligible upstreams returned a 4xx" (429 is the rate-limit rule above).
  if (all(isOther4xx)) return 'upstream_bad_response';
  // upstream_server_error 502: "All eligible upstreams returned a 5xx"; a 2xx with a broken body is a server fault too.
  if (all((f) => is5xx(f) || f.kind === 'bad_response')) return 'upstream_server_error';
  // provider_unavailable 503: "No upstream currently eligible"; none could even be reached.
  if (all((f) => f.kind === 'connect')) return 'provider_unavailable';
  // A mix: any server fault makes it upstream_server_error (retry later); otherwise nothing eligible answered
  // usefully, provider_unavailable (503, "retry with backoff").
  return failures.some(is5xx) ? 'upstream_server_error' : 'provider_unavailable';
}

import { UpstreamError, type UpstreamFailure } from '../../adapters/upstream/index.js';
import { ApiError } from '../../errors/api-error.js';
import { ERROR_CATALOG, type ErrorCode } from '../../errors/catalog.js';
import { classifyExhaustion, isFailoverable } from './classify.js';
import type { Route } from './route-table.js';

export interface AttemptFailure {
  /** The route's provider name in the upstreams file. */
  provider: string;
  failure: UpstreamFailure;
}

export interface ExhaustionInfo {
  slug: string | undefined;
  requestId: string | undefined;
  /** Every attempted route's failure, in chain order. */
  failures: AttemptFailure[];
  code: ErrorCode;
}

export interface ChainHooks {
  /** Named in the error's meta and in the alert. */
  slug?: string;
  requestId?: string;
  /**
   * The request's one end-to-end deadline (epoch ms; SPEC 8: 5 minutes): every route of the chain shares it, and
   * no route is tried once it has passed, so a chain of N routes cannot outlive the request's hold.
   */
  deadlineAtMs: number;
  /** The budget `deadlineAtMs` was set from (ms), named in what a timeout says. */
  budgetMs?: number;
  /** SPEC 7.3: called exactly once when every route failed (see createChainAlert); never on success. */
  onExhausted(info: ExhaustionInfo): void;
}

export interface ChainResult<T> {
  value: T;
  /** The route that answered. */
  route: Route;
  /** The routes that failed before it, in order (empty when the first one answered). */
  failures: AttemptFailure[];
}

/** Used when no rate-limited upstream said how long to wait: SPEC 7.1 requires Retry-After on every 429. */
const DEFAULT_RETRY_AFTER_SEC = 1;

/**
 * Tries the routes in order (SPEC 4.2: cheapest first, transient failures fall through to the next). Only an
 * UpstreamError is failed over: anything else is a bug and propagates unchanged. An `aborted` failure is rethrown
 * at once (the client left); a content filter ends the chain with content_filter (SPEC 7.5, not re-routed).
 * When every route failed: one alert (SPEC 7.3), then an ApiError with the SPEC 7.2 code of classifyExhaustion.
 */
export async function runChain<T>(
  chain: readonly Route[],
  attempt: (route: Route) => Promise<T>,
  hooks: ChainHooks,
): Promise<ChainResult<T>> {
  if (chain.length === 0) throw new Error('runChain: empty chain (RouteTable.chain never returns one)');
  const failures: AttemptFailure[] = [];
  for (const route of chain) {
    if (failures.length > 0 && Date.now() >= hooks.deadlineAtMs) throw exhausted(failures, hooks, 'upstream_timeout');
    try {
      return { value: await attempt(route), route, failures };
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      const failure = err.failure;
      if (failure.kind === 'aborted') throw err;
      failures.push({ provider: route.providerName, failure });
      if (!isFailoverable(failure)) {
        // Not aborted, so a content filter: the verdict stands, no other route is asked and no alert is raised.
        throw new ApiError('content_filter', undefined, { meta: { ...slugMeta(hooks), attempts: failures.length } });
      }
    }
  }
  throw exhausted(failures, hooks);
}

/** One alert (SPEC 7.3) and the error; `timedOut` when the request's deadline, not the routes, ended the chain. */
function exhausted(failures: AttemptFailure[], hooks: ChainHooks, timedOut?: 'upstream_timeout'): ApiError {
  const code = timedOut ?? classifyExhaustion(failures.map((f) => f.failure));
  hooks.onExhausted({ slug: hooks.slug, requestId: hooks.requestId, failures, code });
  const message = `${ERROR_CATALOG[code].message} (${failures.length} upstream ${failures.length === 1 ? 'attempt' : 'attempts'})`;
  const headers: Record<string, string> =
    code === 'upstream_rate_limit' ? { 'Retry-After': String(retryAfterSec(failures)) } : {};
  return new ApiError(code, message, { meta: { ...slugMeta(hooks), attempts: failures.length }, headers });
}

/** The longest wait any upstream asked for: retrying sooner would only meet another 429. */
function retryAfterSec(failures: AttemptFailure[]): number {
  const hints = failures.flatMap(({ failure }) =>
    failure.kind === 'http' && failure.retryAfterSec !== undefined ? [failure.retryAfterSec] : [],
  );
  return hints.length === 0
    ? DEFAULT_RETRY_AFTER_SEC
    : Math.max(DEFAULT_RETRY_AFTER_SEC, Math.ceil(Math.max(...hints)));
}

function slugMeta(hooks: ChainHooks): { slug?: string } {
  return hooks.slug === undefined ? {} : { slug: hooks.slug };
}

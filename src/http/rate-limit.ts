import type { RequestHandler, Response } from 'express';
import type { RateLimitDecision, RateLimiter, WindowState } from '../adapters/rate-limiter/index.js';
import type { Principal } from '../domain/keys/authenticator.js';
import { ApiError } from '../errors/api-error.js';

export interface RateLimitDefaults {
  perKeyPerMinute: number;
  perAccountPerMinute: number;
}

/** DESIGN.md 3: report the window with the least room left; on a 429, the window that rejected. */
function shownWindow(decision: RateLimitDecision): WindowState {
  if (!decision.allowed) return decision.rejectedBy === 'key' ? decision.key : decision.account;
  return decision.key.remaining <= decision.account.remaining ? decision.key : decision.account;
}

function setRateLimitHeaders(res: Response, window: WindowState): void {
  res.setHeader('X-RateLimit-Limit', String(window.limit));
  res.setHeader('X-RateLimit-Remaining', String(window.remaining));
  res.setHeader('X-RateLimit-Reset', String(Math.ceil(window.resetMs / 1000)));
}

/** What the route's `admitted` step and the error handler wait for: null when admitted, else the 429 to answer. */
type Admission = Promise<ApiError | null>;

/**
 * SPEC 7.1.4, 8: every key-authenticated call passes both sliding windows (per key, per account) or gets a
 * 429 with Retry-After; successes carry the X-RateLimit-* headers. Public calls without a key are not limited here.
 *
 * `start` sends the check and lets the request go on; `admitted`, the last step before the handler, waits for the
 * verdict, so nothing is done for a refused call, and the check's round trip (scaled out, to Redis) overlaps reading
 * and validating the body. The error handler waits for it too (`admissionRefusal`): a 429 wins over any other error
 * of the same request, as if the check had come first, and its headers are never late.
 */
export function rateLimit(
  limiter: RateLimiter,
  defaults: RateLimitDefaults,
  now: () => number,
): { start: RequestHandler; admitted: RequestHandler } {
  const start: RequestHandler = (_req, res, next) => {
    const principal = res.locals.principal as Principal | null;
    if (principal === null) return next();
    const admission: Admission = limiter
      .check({
        keyId: principal.keyId,
        accountId: principal.accountId,
        keyLimit: principal.keyRateLimitPerMinute ?? defaults.perKeyPerMinute,
        accountLimit: principal.account.rateLimitPerMinute ?? defaults.perAccountPerMinute,
        nowMs: now(),
      })
      .then((decision) => {
        setRateLimitHeaders(res, shownWindow(decision));
        if (decision.allowed) return null;
        const retryAfter = String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
        return new ApiError(decision.rejectedBy === 'key' ? 'rate_limit_per_key' : 'rate_limit_per_user', undefined, {
          headers: { 'Retry-After': retryAfter },
        });
      });
    admission.catch(() => undefined); // a limiter failure surfaces in `admitted`, never as an unhandled rejection
    res.locals.admission = admission;
    next();
  };
  const admitted: RequestHandler = async (_req, res, next) => {
    const refusal = await (res.locals.admission as Admission | undefined);
    if (refusal) throw refusal;
    next();
  };
  return { start, admitted };
}

/** The 429 a request's pending check ends in, if any (null when admitted, unchecked, or the limiter failed). */
export async function admissionRefusal(res: Response): Promise<ApiError | null> {
  const admission = res.locals.admission as Admission | undefined;
  return admission === undefined ? null : admission.catch(() => null);
}

import type { RequestHandler, Response } from 'express';
import type { RateLimitDecision, RateLimiter, WindowState } from '../adapters/rate-limiter/index.js';
import type { Principal } from '../domain/authenticator.js';
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

/**
 * SPEC 7.1.4, 8: every key-authenticated call passes both sliding windows (per key, per account) or gets a
 * 429 with Retry-After; successes carry the X-RateLimit-* headers. Public calls without a key are not limited here.
 */
export function rateLimit(limiter: RateLimiter, defaults: RateLimitDefaults, now: () => number): RequestHandler {
  return async (_req, res, next) => {
    const principal = res.locals.principal as Principal | null;
    if (principal === null) return next();
    const decision = await limiter.check({
      keyId: principal.keyId,
      accountId: principal.accountId,
      keyLimit: principal.keyRateLimitPerMinute ?? defaults.perKeyPerMinute,
      accountLimit: principal.account.rateLimitPerMinute ?? defaults.perAccountPerMinute,
      nowMs: now(),
    });
    setRateLimitHeaders(res, shownWindow(decision));
    if (!decision.allowed) {
      const retryAfter = String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000)));
      throw new ApiError(decision.rejectedBy === 'key' ? 'rate_limit_per_key' : 'rate_limit_per_user', undefined, {
        headers: { 'Retry-After': retryAfter },
      });
    }
    next();
  };
}

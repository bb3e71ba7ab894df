/**
 * The rate-limiter port (SPEC 7.1.4, 8): a true sliding window per API key and one per account over all its
 * keys, both checked and recorded atomically. A request at time t counts in the window at `now` while
 * t > now − windowMs; a rejected request is not recorded in either window.
 */

export interface RateLimitRequest {
  keyId: string;
  accountId: string;
  keyLimit: number;
  accountLimit: number;
  nowMs: number;
}

export interface WindowState {
  limit: number;
  /** Requests left after this one (0 when this one was rejected by this window). */
  remaining: number;
  /** Ms until the oldest request in the window leaves it (0 when the window is empty). */
  resetMs: number;
}

export type RateLimitDecision =
  | { allowed: true; key: WindowState; account: WindowState }
  | { allowed: false; rejectedBy: 'key' | 'account'; retryAfterMs: number; key: WindowState; account: WindowState };

export interface RateLimiter {
  check(request: RateLimitRequest): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** SPEC 8: "a true sliding 60-second window". */
export const WINDOW_MS = 60_000;

/**
 * The rate-limiter port (SPEC 7.1.4, 8): a true sliding window per API key and one per account over all its
 * keys, both checked and recorded atomically. A request at time t counts in the window at `now` while
 * t > now − windowMs; a rejected request is not recorded in either window.
 *
 * `hit` is the same sliding window for anything else that must be counted across processes: attempts to sign
 * in, sign up, confirm or reset (issue 26 item 5). One attempt names one or more windows (a bucket each, with
 * its own limit and length); it is admitted only when every window has room, and then recorded in all of them,
 * in one atomic step. A refused attempt is recorded in none: each window then holds at most `limit` entries
 * whatever a client sends (bounded memory under a flood), and the retry delay it is told is exact.
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

/** One sliding window an attempt counts in. A bucket is always used with the same `windowMs`. */
export interface AttemptWindow {
  /** Names what is counted (`signin:addr:<address>`); the caller keeps secrets and personal data out of it. */
  bucket: string;
  limit: number;
  windowMs: number;
}

export interface AttemptRequest {
  windows: readonly AttemptWindow[];
  nowMs: number;
}

export type AttemptDecision =
  /** `remaining`: attempts left after this one in the window with the fewest. */
  | { allowed: true; remaining: number }
  /**
   * `rejectedBy`: the bucket of the full window that frees last; `retryAfterMs`: when every full window has
   * room again (a window with limit 0 never frees: a whole window is hinted).
   */
  | { allowed: false; rejectedBy: string; retryAfterMs: number };

export interface RateLimiter {
  check(request: RateLimitRequest): Promise<RateLimitDecision>;
  /** Checks and records one attempt in all its windows at once, or in none. */
  hit(request: AttemptRequest): Promise<AttemptDecision>;
  close(): Promise<void>;
}

/** SPEC 8: "a true sliding 60-second window". */
export const WINDOW_MS = 60_000;

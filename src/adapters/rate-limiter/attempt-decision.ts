/**
 * The decision rule of `hit` (index.ts: attempt windows), shared by the in-process and the Redis implementations
 * so both answer identically from the same counts (issue 26 item 5).
 */
import { msUntilLeaves, type WindowSnapshot } from './decision.js';
import type { AttemptDecision, AttemptRequest } from './index.js';

/** Counts are taken before recording: admitted only when every window has room. */
export function attemptAllowed(request: AttemptRequest, counts: readonly number[]): boolean {
  return request.windows.every((window, i) => (counts[i] as number) < window.limit);
}

/** Builds the answer from each window's state after the decision (the new entry included when admitted). */
export function attemptDecisionFor(
  request: AttemptRequest,
  allowed: boolean,
  snapshots: readonly WindowSnapshot[],
): AttemptDecision {
  const { windows, nowMs } = request;
  if (allowed) {
    const remaining = windows.map((window, i) => Math.max(0, window.limit - (snapshots[i] as WindowSnapshot).count));
    return { allowed: true, remaining: Math.min(...remaining) };
  }
  // Every full window must have room again before a retry can pass: the one that frees last sets the delay.
  let refused = { rejectedBy: '', retryAfterMs: -1 };
  windows.forEach((window, i) => {
    const { count, oldestMs } = snapshots[i] as WindowSnapshot;
    if (count < window.limit) return;
    // A window with a limit of 0 refuses with nothing in it: no entry will leave, so hint a full window.
    const waitMs = oldestMs === undefined ? window.windowMs : msUntilLeaves(oldestMs, nowMs, window.windowMs);
    if (waitMs > refused.retryAfterMs) refused = { rejectedBy: window.bucket, retryAfterMs: waitMs };
  });
  return { allowed: false, ...refused };
}

/** Programmer errors, not outcomes: integer epoch ms, at least one window, distinct named buckets, sane numbers. */
export function assertValidAttempt(request: AttemptRequest): void {
  if (!Number.isSafeInteger(request.nowMs)) throw new RangeError(`nowMs must be an integer (got ${request.nowMs})`);
  if (request.windows.length === 0) throw new RangeError('an attempt needs at least one window');
  const buckets = new Set<string>();
  for (const { bucket, limit, windowMs } of request.windows) {
    if (bucket === '' || buckets.has(bucket)) throw new RangeError(`bucket names must be distinct and non-empty`);
    buckets.add(bucket);
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`limit of ${bucket} must be a non-negative integer (got ${limit})`);
    if (!Number.isSafeInteger(windowMs) || windowMs <= 0)
      throw new RangeError(`windowMs of ${bucket} must be a positive integer (got ${windowMs})`);
  }
}

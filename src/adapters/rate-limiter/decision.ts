/**
 * The rate-limiter decision rule, shared by the in-process and the Redis implementations so both answer
 * identically from the same counts (SPEC 7.1.4, 8).
 */
import type { RateLimitDecision, RateLimitRequest, WindowState } from './index.js';

export type Verdict = 'allowed' | 'key' | 'account';

/** State of one window after the decision: entries in it (the new one included when admitted), and the oldest. */
export interface WindowSnapshot {
  count: number;
  oldestMs: number | undefined;
}

/** Counts are taken before recording. Both windows full → the key window is named (the narrower limit). */
export function verdictFor(keyCount: number, keyLimit: number, accountCount: number, accountLimit: number): Verdict {
  if (keyCount >= keyLimit) return 'key';
  if (accountCount >= accountLimit) return 'account';
  return 'allowed';
}

/** Builds the port's answer from both windows' state after the decision. */
export function decisionFor(
  request: RateLimitRequest,
  verdict: Verdict,
  windowMs: number,
  key: WindowSnapshot,
  account: WindowSnapshot,
): RateLimitDecision {
  const keyState = windowState(request.keyLimit, key, request.nowMs, windowMs);
  const accountState = windowState(request.accountLimit, account, request.nowMs, windowMs);
  if (verdict === 'allowed') return { allowed: true, key: keyState, account: accountState };
  const rejecting = verdict === 'key' ? key : account;
  // A window with a limit of 0 rejects with nothing in it: no entry will leave, so hint a full window.
  const retryAfterMs =
    rejecting.oldestMs === undefined ? windowMs : msUntilLeaves(rejecting.oldestMs, request.nowMs, windowMs);
  return { allowed: false, rejectedBy: verdict, retryAfterMs, key: keyState, account: accountState };
}

function windowState(limit: number, snapshot: WindowSnapshot, nowMs: number, windowMs: number): WindowState {
  return {
    limit,
    // A rejecting window is full, so this is 0 for it; max() also covers a limit lowered below the count.
    remaining: Math.max(0, limit - snapshot.count),
    resetMs: snapshot.oldestMs === undefined ? 0 : msUntilLeaves(snapshot.oldestMs, nowMs, windowMs),
  };
}

/** An entry at t counts while t > now − windowMs, so it leaves at now = t + windowMs. */
export function msUntilLeaves(entryMs: number, nowMs: number, windowMs: number): number {
  return Math.max(0, entryMs + windowMs - nowMs);
}

/** Programmer errors, not rate-limit outcomes: integer epoch ms and non-negative integer limits. */
export function assertValidRequest(request: RateLimitRequest): void {
  if (!Number.isSafeInteger(request.nowMs)) throw new RangeError(`nowMs must be an integer (got ${request.nowMs})`);
  for (const [name, limit] of [
    ['keyLimit', request.keyLimit],
    ['accountLimit', request.accountLimit],
  ] as const) {
    if (!Number.isSafeInteger(limit) || limit < 0)
      throw new RangeError(`${name} must be a non-negative integer (got ${limit})`);
  }
}

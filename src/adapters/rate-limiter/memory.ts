/**
 * In-process twin of the rate-limiter port (SPEC 7.1.4, 8): the embedded default (DESIGN 3) and the local
 * fallback of FailOpenRateLimiter. Each window is a sorted log of the times of the requests it admitted,
 * pruned on every check, so the window truly slides (SPEC 8: "a true sliding 60-second window").
 *
 * `check` and `hit` run synchronously between awaits, so checking every window and recording in all of them is
 * atomic within the process, exactly as the Redis scripts are across processes.
 */
import { assertValidAttempt, attemptAllowed, attemptDecisionFor } from './attempt-decision.js';
import { assertValidRequest, decisionFor, verdictFor } from './decision.js';
import {
  type AttemptDecision,
  type AttemptRequest,
  type RateLimitDecision,
  type RateLimiter,
  type RateLimitRequest,
  WINDOW_MS,
} from './index.js';

export interface MemoryRateLimiterOptions {
  /** Length of the sliding window (SPEC 8: 60 s). Tests shorten it. */
  windowMs?: number;
}

export class MemoryRateLimiter implements RateLimiter {
  readonly #windowMs: number;
  readonly #keys = new Map<string, TimeLog>();
  readonly #accounts = new Map<string, TimeLog>();
  readonly #attempts = new Map<string, TimeLog>();
  /** Each attempt bucket's window length, for the sweep (the port: a bucket is always used with one length). */
  readonly #attemptWindowMs = new Map<string, number>();
  /** Clock value of the last full sweep; windows of keys never checked again are dropped by the sweep. */
  #lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.#windowMs = options.windowMs ?? WINDOW_MS;
    if (!Number.isSafeInteger(this.#windowMs) || this.#windowMs <= 0)
      throw new RangeError(`windowMs must be a positive integer (got ${this.#windowMs})`);
  }

  /** Windows currently held in memory (at most those with a request in the last two windows; for metrics and tests). */
  get windowCount(): number {
    return this.#keys.size + this.#accounts.size + this.#attempts.size;
  }

  async check(request: RateLimitRequest): Promise<RateLimitDecision> {
    return this.#checkNow(request);
  }

  async hit(request: AttemptRequest): Promise<AttemptDecision> {
    assertValidAttempt(request);
    const { nowMs } = request;
    this.#sweepIfDue(nowMs);
    const logs = request.windows.map((window) => pruned(this.#attempts, window.bucket, nowMs - window.windowMs));
    const allowed = attemptAllowed(
      request,
      logs.map((log) => log.size),
    );
    if (allowed) {
      request.windows.forEach((window, i) => {
        record(this.#attempts, window.bucket, logs[i] as TimeLog, nowMs);
        this.#attemptWindowMs.set(window.bucket, window.windowMs);
      });
    }
    return attemptDecisionFor(
      request,
      allowed,
      logs.map((log) => ({ count: log.size, oldestMs: log.oldestMs })),
    );
  }

  async close(): Promise<void> {
    this.#keys.clear();
    this.#accounts.clear();
    this.#attempts.clear();
    this.#attemptWindowMs.clear();
  }

  #checkNow(request: RateLimitRequest): RateLimitDecision {
    assertValidRequest(request);
    const { nowMs } = request;
    this.#sweepIfDue(nowMs);
    const cutoffMs = nowMs - this.#windowMs;
    const keyLog = pruned(this.#keys, request.keyId, cutoffMs);
    const accountLog = pruned(this.#accounts, request.accountId, cutoffMs);
    const verdict = verdictFor(keyLog.size, request.keyLimit, accountLog.size, request.accountLimit);
    if (verdict === 'allowed') {
      // The port: only an admitted request is recorded, and then in both windows.
      record(this.#keys, request.keyId, keyLog, nowMs);
      record(this.#accounts, request.accountId, accountLog, nowMs);
    }
    return decisionFor(
      request,
      verdict,
      this.#windowMs,
      { count: keyLog.size, oldestMs: keyLog.oldestMs },
      { count: accountLog.size, oldestMs: accountLog.oldestMs },
    );
  }

  /**
   * Bounded memory: a window is pruned when its key is checked, but a key that stops sending would keep its
   * log forever. Once per window length of clock time, drop every log whose entries have all left.
   */
  #sweepIfDue(nowMs: number): void {
    if (Math.abs(nowMs - this.#lastSweepMs) < this.#windowMs) return;
    this.#lastSweepMs = nowMs;
    const cutoffMs = nowMs - this.#windowMs;
    for (const windows of [this.#keys, this.#accounts]) {
      for (const id of [...windows.keys()]) pruned(windows, id, cutoffMs);
    }
    for (const [bucket, windowMs] of [...this.#attemptWindowMs]) {
      pruned(this.#attempts, bucket, nowMs - windowMs);
      if (!this.#attempts.has(bucket)) this.#attemptWindowMs.delete(bucket);
    }
  }
}

/** The log of `id` without the entries that left the window (t ≤ cutoff); an emptied log is forgotten. */
function pruned(windows: Map<string, TimeLog>, id: string, cutoffMs: number): TimeLog {
  const log = windows.get(id);
  if (log === undefined) return new TimeLog();
  log.dropThrough(cutoffMs);
  if (log.size === 0) windows.delete(id);
  return log;
}

function record(windows: Map<string, TimeLog>, id: string, log: TimeLog, atMs: number): void {
  log.insert(atMs);
  windows.set(id, log);
}

/**
 * The ascending times of one window's admitted requests. Entries leave from the front by moving `head`, and the
 * array is compacted only once most of it has left: a log holds up to a limit's worth of entries (a high tier
 * admits tens of thousands a minute), and cutting the front of such an array on every check would copy it all.
 */
class TimeLog {
  #times: number[] = [];
  #head = 0;

  get size(): number {
    return this.#times.length - this.#head;
  }

  get oldestMs(): number | undefined {
    return this.#times[this.#head];
  }

  dropThrough(cutoffMs: number): void {
    this.#head = firstAbove(this.#times, cutoffMs, this.#head);
    if (this.#head > COMPACT_AFTER && this.#head * 2 > this.#times.length) {
      this.#times.splice(0, this.#head);
      this.#head = 0;
    }
  }

  /** In time order: clocks of callers may disagree, and Redis (a sorted set) orders by time too. */
  insert(atMs: number): void {
    this.#times.splice(firstAbove(this.#times, atMs, this.#head), 0, atMs);
  }
}

const COMPACT_AFTER = 1024;

/** Index of the first entry > value in the ascending log from `from` on (binary search). */
function firstAbove(log: number[], value: number, from: number): number {
  let low = from;
  let high = log.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((log[mid] as number) <= value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/**
 * Availability policy of the shared rate limiter (SPEC 7.1.4, 8; DESIGN 3 scale-out):
 *
 * Redis down → every process keeps serving, each answering from its own local window (a MemoryRateLimiter),
 * so the limits then hold per process, not across processes (N processes admit up to N × the limit), and this
 * is logged as a warning at most once per 10 s. Rate limiting protects capacity; refusing all traffic because
 * the limiter's store is down would turn a Redis outage into a full outage. Money is protected elsewhere
 * (ledger holds, DESIGN 3), so failing open here cannot overspend a balance.
 *
 * "Down" means any of: the client reports it is not ready (answered locally without trying Redis), the call
 * throws, or it does not answer within `timeoutMs` (default 50 ms; a healthy Redis answers in about 1 ms).
 * A timed-out call may still complete in Redis later; that request is then counted in both the shared and the
 * local window, which errs on the strict side for at most one window.
 *
 * Attempt windows (`hit`: sign-in, sign-up, confirmation and reset attempts, issue 26 item 5) fail CLOSED: while
 * Redis is down `hit` throws, and the caller answers a retryable 503 (docs/threat-model.md). Those windows are a
 * security control, not capacity protection: a local window starts empty when Redis goes away, so falling back
 * would hand a guesser a fresh budget in every process at once (N processes × the limit, again at each outage);
 * and what the outage costs is bounded: people cannot sign in for its length, while API keys keep working.
 * Attempts wait longer for Redis than requests (`attemptTimeoutMs`, default 1 s): a sign-in already spends about
 * 100 ms hashing a password, and refusing a person because of a hiccup costs more than waiting.
 */
import type { AttemptDecision, AttemptRequest, RateLimitDecision, RateLimiter, RateLimitRequest } from './index.js';

/** The part of a pino logger this uses. */
export interface WarnLogger {
  warn(obj: object, msg: string): void;
}

export interface FailOpenRateLimiterOptions {
  primary: RateLimiter;
  fallback: RateLimiter;
  logger: WarnLogger;
  /** E.g. `() => isRedisReady(client)` (redis/connect.ts): skip the primary while it is disconnected. Default: always ready. */
  isPrimaryReady?: () => boolean;
  /** Longest wait for the primary before answering locally. Default 50 ms. */
  timeoutMs?: number;
  /** Longest wait for the primary on an attempt before refusing it. Default 1 s. */
  attemptTimeoutMs?: number;
  /** At most one warning per this interval. Default 10 s. */
  warnIntervalMs?: number;
  /** Wall clock for the warning throttle (not for the windows: those use each request's nowMs). */
  clock?: () => number;
}

export type FallbackReason = 'primary_not_ready' | 'primary_error' | 'primary_timeout';

class PrimaryTimeoutError extends Error {}

export class FailOpenRateLimiter implements RateLimiter {
  readonly #primary: RateLimiter;
  readonly #fallback: RateLimiter;
  readonly #logger: WarnLogger;
  readonly #isPrimaryReady: () => boolean;
  readonly #timeoutMs: number;
  readonly #attemptTimeoutMs: number;
  readonly #warnIntervalMs: number;
  readonly #clock: () => number;
  #lastWarnMs = Number.NEGATIVE_INFINITY;
  /** Fallbacks since the last warning, reported with the next one so the log still shows the volume. */
  #unreported = 0;

  constructor(options: FailOpenRateLimiterOptions) {
    this.#primary = options.primary;
    this.#fallback = options.fallback;
    this.#logger = options.logger;
    this.#isPrimaryReady = options.isPrimaryReady ?? (() => true);
    this.#timeoutMs = options.timeoutMs ?? 50;
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? 1_000;
    this.#warnIntervalMs = options.warnIntervalMs ?? 10_000;
    this.#clock = options.clock ?? Date.now;
  }

  async check(request: RateLimitRequest): Promise<RateLimitDecision> {
    if (!this.#isPrimaryReady()) return this.#fallBack(request, 'primary_not_ready');
    try {
      return await withTimeout(this.#primary.check(request), this.#timeoutMs);
    } catch (err) {
      // An invalid request is the caller's bug, not an outage: the local window would refuse it the same way.
      if (err instanceof RangeError) throw err;
      return this.#fallBack(request, err instanceof PrimaryTimeoutError ? 'primary_timeout' : 'primary_error', err);
    }
  }

  /** Fails closed (above): the primary's answer, or the error that kept it from answering. */
  async hit(request: AttemptRequest): Promise<AttemptDecision> {
    if (!this.#isPrimaryReady()) {
      this.#warn('primary_not_ready', undefined, ATTEMPTS_REFUSED, this.#attemptTimeoutMs);
      throw new Error('the shared rate-limit store is not connected');
    }
    try {
      return await withTimeout(this.#primary.hit(request), this.#attemptTimeoutMs);
    } catch (err) {
      if (!(err instanceof RangeError))
        this.#warn(
          err instanceof PrimaryTimeoutError ? 'primary_timeout' : 'primary_error',
          err,
          ATTEMPTS_REFUSED,
          this.#attemptTimeoutMs,
        );
      throw err;
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.#primary.close(), this.#fallback.close()]);
  }

  #fallBack(request: RateLimitRequest, reason: FallbackReason, err?: unknown): Promise<RateLimitDecision> {
    this.#warn(reason, err, REQUESTS_LOCAL, this.#timeoutMs);
    return this.#fallback.check(request);
  }

  #warn(reason: FallbackReason, err: unknown, message: string, timeoutMs: number): void {
    this.#unreported += 1;
    const nowMs = this.#clock();
    if (nowMs - this.#lastWarnMs < this.#warnIntervalMs) return;
    this.#lastWarnMs = nowMs;
    const fallbacks = this.#unreported;
    this.#unreported = 0;
    const detail = err === undefined ? {} : { err };
    this.#logger.warn({ reason, fallbacks, timeoutMs, ...detail }, message);
  }
}

const REQUESTS_LOCAL =
  'rate limiter: shared store unavailable, answering from the local window (limits hold per process until it recovers)';
const ATTEMPTS_REFUSED =
  'rate limiter: shared store unavailable, refusing sign-in, sign-up, confirmation and reset attempts until it recovers';

/** The primary's answer, or PrimaryTimeoutError after `timeoutMs`; the late answer is ignored. */
async function withTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PrimaryTimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    // race() subscribes to `work`, so its late rejection is handled and never reported as unhandled.
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Measured throughput per model (SPEC 2.5 `tokens_per_sec` / `tokens_per_sec_approx`; GET
 * /v1/llm/models/{slug}/performance), from this process's streamed traffic over a sliding window.
 *
 * Medians, not means: one stalled or cached answer must not move the figure a client plans with. Memory is
 * bounded: at most `maxSamplesPerModel` samples per slug (the oldest go first), samples leave with the window,
 * and a slug whose samples have all left is forgotten. Slugs come from the catalog, so their number is bounded.
 */

export interface ThroughputSample {
  /** Tokens the model produced for this answer. */
  outputTokens: number;
  /** Time to first token: dispatch → first token. */
  firstTokenMs: number;
  /** First token → last token. */
  streamMs: number;
}

export interface ThroughputStats {
  /** Samples in the window. */
  samples: number;
  /** Median of outputTokens / (streamMs / 1000); null without samples. */
  tokensPerSec: number | null;
  /** Median time to first token; null without samples. */
  medianTtftMs: number | null;
}

export interface ThroughputTrackerOptions {
  /** How far back samples count (config THROUGHPUT_WINDOW_MS). Default one hour. */
  windowMs?: number;
  /** Newest samples kept per slug: bounds memory and the cost of a median. Default 1000. */
  maxSamplesPerModel?: number;
  now?: () => number;
}

interface Measured {
  atMs: number;
  tokensPerSec: number;
  ttftMs: number;
}

const NO_STATS: ThroughputStats = { samples: 0, tokensPerSec: null, medianTtftMs: null };

export class ThroughputTracker {
  readonly #windowMs: number;
  readonly #maxSamples: number;
  readonly #now: () => number;
  /** Per slug, samples in the order recorded (oldest first). */
  readonly #bySlug = new Map<string, Measured[]>();
  #lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(options: ThroughputTrackerOptions = {}) {
    this.#windowMs = options.windowMs ?? 3_600_000;
    this.#maxSamples = options.maxSamplesPerModel ?? 1000;
    this.#now = options.now ?? Date.now;
    if (!(this.#windowMs > 0) || !Number.isFinite(this.#windowMs))
      throw new RangeError(`windowMs must be positive (got ${this.#windowMs})`);
    if (!Number.isSafeInteger(this.#maxSamples) || this.#maxSamples < 1)
      throw new RangeError(`maxSamplesPerModel must be a positive integer (got ${this.#maxSamples})`);
  }

  /**
   * Records one streamed answer; false when it says nothing about speed: under two tokens there is no
   * first-to-last interval, and a zero stream time would divide by zero. Malformed numbers are dropped as well
   * (a metric must never fail the request that produced it).
   */
  record(slug: string, sample: ThroughputSample): boolean {
    const { outputTokens, firstTokenMs, streamMs } = sample;
    if (!(outputTokens >= 2) || !(streamMs > 0) || !(firstTokenMs >= 0)) return false;
    if (!Number.isFinite(outputTokens) || !Number.isFinite(streamMs) || !Number.isFinite(firstTokenMs)) return false;
    const nowMs = this.#now();
    this.#sweepIfDue(nowMs);
    const samples = this.#live(slug, nowMs);
    samples.push({ atMs: nowMs, tokensPerSec: outputTokens / (streamMs / 1000), ttftMs: firstTokenMs });
    if (samples.length > this.#maxSamples) samples.splice(0, samples.length - this.#maxSamples);
    this.#bySlug.set(slug, samples);
    return true;
  }

  stats(slug: string): ThroughputStats {
    const samples = this.#live(slug, this.#now());
    if (samples.length === 0) return { ...NO_STATS };
    return {
      samples: samples.length,
      tokensPerSec: median(samples.map((s) => s.tokensPerSec)),
      medianTtftMs: median(samples.map((s) => s.ttftMs)),
    };
  }

  /** Slugs with at least one sample in the window. */
  measuredSlugs(): string[] {
    const nowMs = this.#now();
    return [...this.#bySlug.keys()].filter((slug) => this.#live(slug, nowMs).length > 0);
  }

  /** The slug's samples still in the window (t > now − windowMs); an emptied list is forgotten. */
  #live(slug: string, nowMs: number): Measured[] {
    const samples = this.#bySlug.get(slug);
    if (samples === undefined) return [];
    const cutoffMs = nowMs - this.#windowMs;
    // Recorded in clock order, so the expired ones lead (a clock stepping back only delays their leaving).
    let expired = 0;
    while (expired < samples.length && (samples[expired] as Measured).atMs <= cutoffMs) expired += 1;
    if (expired > 0) samples.splice(0, expired);
    if (samples.length === 0) this.#bySlug.delete(slug);
    return samples;
  }

  /** A slug that stops being streamed is otherwise never pruned; once per window, prune them all. */
  #sweepIfDue(nowMs: number): void {
    if (Math.abs(nowMs - this.#lastSweepMs) < this.#windowMs) return;
    this.#lastSweepMs = nowMs;
    for (const slug of [...this.#bySlug.keys()]) this.#live(slug, nowMs);
  }
}

/** Middle value; the mean of the two middle ones for an even count. `values` is not empty. */
function median(values: number[]): number {
  const sorted = values.sort((a, b) => a - b);
  const mid = sorted.length >>> 1;
  const upper = sorted[mid] as number;
  return sorted.length % 2 === 1 ? upper : ((sorted[mid - 1] as number) + upper) / 2;
}

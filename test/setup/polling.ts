/**
 * Polling for what happens after an answer (a charge settled after `[DONE]`, a job run in the background, another
 * process catching up). Bounds are generous on purpose: they only turn a hang into a failure, and a busy 2-core
 * machine runs background work late. A test never asserts how long something took (DESIGN.md 5).
 */
import { sleep } from './time.js';

export interface PollTiming {
  /** Give up after this long (Infinity: the test's own timeout bounds the wait). */
  withinMs: number;
  /** Pause between reads; default 20 ms. */
  everyMs?: number;
}

/**
 * Re-reads until `done` holds or `withinMs` has passed, and returns the last value read either way: the caller's
 * own expect judges it, and shows it when it fails.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { withinMs, everyMs = 20 }: PollTiming,
): Promise<T> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await sleep(everyMs);
  }
}

/** Re-runs `probe` every 20 ms until it returns a value other than undefined; fails after `withinMs`. */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  withinMs = 15_000,
  what = 'condition',
): Promise<T> {
  const value = await pollUntil(probe, (v) => v !== undefined, { withinMs });
  if (value === undefined) throw new Error(`${what} not reached within ${withinMs} ms`);
  return value;
}

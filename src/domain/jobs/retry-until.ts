/** Backoff of a write that must land: from a blink to a few seconds. */
const FIRST_DELAY_MS = 50;
const MAX_DELAY_MS = 5_000;

/**
 * Retries `write` until it succeeds or `giveUpAtMs` (the record's expiry: after it nobody can read what is
 * written) has passed, reporting each failure. For a job's record once its outcome is decided (charged, or
 * failed and released): that outcome must be recorded, never turned into another because a store hiccupped.
 * Stops early when `lost` aborts (the job's lease went to another worker, or this process is closing): whoever
 * resumes the job records it.
 */
export async function retryUntil(
  giveUpAtMs: number,
  now: () => number,
  lost: AbortSignal,
  write: () => Promise<unknown>,
  onFailure: (err: unknown) => void,
): Promise<void> {
  for (let delayMs = FIRST_DELAY_MS; ; delayMs = Math.min(delayMs * 2, MAX_DELAY_MS)) {
    try {
      await write();
      return;
    } catch (err) {
      onFailure(err);
      if (now() + delayMs > giveUpAtMs || lost.aborted) return;
      await new Promise((resolve) => setTimeout(resolve, delayMs).unref());
    }
  }
}

/**
 * Background work on a timer (the hold sweeper, the charge journal's retries, the idempotency-key sweeper): one
 * run at a time, a failed run reported and retried at the next tick, and the timer unref'd so it never keeps a
 * process alive.
 */
export class Periodic {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | null = null;

  constructor(
    private readonly task: () => Promise<unknown>,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Runs every `intervalMs`, and at once (work left by a previous process is not made to wait). */
  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.run(), intervalMs);
    this.timer.unref();
    void this.run();
  }

  /** One run now, or the one in progress. */
  run(): Promise<void> {
    this.running ??= this.task()
      .then(() => undefined, this.onError)
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.running;
  }
}

import type { UsageLogStore, UsageRecord } from '../adapters/usage-log/index.js';

export interface UsageLogWriterOptions {
  /** Longest a recorded line waits before it is written. */
  flushMs: number;
  /** Records per append; reaching it pending triggers a write at once. */
  maxBatch: number;
  /** Most records kept while the store fails; the oldest beyond it are dropped. Default 100 × maxBatch. */
  maxPending?: number;
  /** Failed appends and dropped records are reported here; the writer itself never throws at its callers. */
  onError: (err: unknown) => void;
}

/** Reported through onError when the store has been failing long enough for the buffer to overflow. */
export class UsageRecordsDroppedError extends Error {
  constructor(readonly dropped: number) {
    super(`usage log buffer full: dropped the ${dropped} oldest record(s)`);
    this.name = 'UsageRecordsDroppedError';
  }
}

/**
 * Buffers usage records and appends them in batches (DESIGN 8: the usage log must not become the database
 * bottleneck, so a request never waits for its log line). One append is in flight at a time, which keeps
 * retried batches in order and caps the load a failing database sees. Records must not be mutated after
 * `record()`. Appends are idempotent by record id, so a batch that failed half-way is simply retried.
 */
export class UsageLogWriter {
  private pending: UsageRecord[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The drain chain: every write runs after the previous one settled. */
  private tail: Promise<void> = Promise.resolve();
  /** A drain is chained but has not started yet, so it will still see anything recorded now. */
  private queued = false;
  /** The last append failed: wait for the timer instead of retrying on every full batch. */
  private failing = false;
  private stopped = false;
  private dropped = 0;
  private readonly maxPending: number;

  constructor(
    private readonly store: UsageLogStore,
    private readonly options: UsageLogWriterOptions,
  ) {
    if (!(options.maxBatch >= 1) || !(options.flushMs >= 0)) throw new RangeError('maxBatch must be ≥ 1 and flushMs ≥ 0');
    this.maxPending = Math.max(options.maxPending ?? options.maxBatch * 100, options.maxBatch);
  }

  /** Records waiting to be written (excluding a batch in flight). */
  get pendingCount(): number {
    return this.pending.length;
  }

  /** Queues one record; never blocks and never throws for storage reasons. */
  record(r: UsageRecord): void {
    this.pending.push(r);
    this.enforceCap();
    // After stop() there is no batching window left: write late arrivals straight away (unless the store is down).
    const due = this.stopped || this.pending.length >= this.options.maxBatch;
    if (due && !this.failing) this.kick();
    else this.arm();
  }

  /** Resolves once everything recorded before the call has had one write attempt (failures go to onError). */
  flush(): Promise<void> {
    this.kick();
    return this.tail;
  }

  /** Stops the timer and writes what is pending (shutdown). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    await this.flush();
  }

  private kick(): void {
    this.disarm();
    if (this.queued) return;
    this.queued = true;
    this.tail = this.tail.then(() => {
      this.queued = false;
      return this.drain();
    });
  }

  /** Writes what is pending when it starts, in batches of maxBatch; stops at the first failure. */
  private async drain(): Promise<void> {
    this.reportDrops();
    let budget = this.pending.length;
    while (budget > 0 && this.pending.length > 0) {
      const batch = this.pending.splice(0, Math.min(this.options.maxBatch, budget));
      budget -= batch.length;
      try {
        await this.store.append(batch);
        this.failing = false;
      } catch (err) {
        // Back in front, oldest first, for the next attempt; the cap then drops from the oldest end.
        this.pending = batch.concat(this.pending);
        this.failing = true;
        this.enforceCap();
        this.safeReport(err);
        break;
      }
    }
    this.reportDrops();
    if (this.pending.length === 0) return;
    if (this.pending.length >= this.options.maxBatch && !this.failing) this.kick();
    else this.arm();
  }

  private arm(): void {
    if (this.timer !== undefined || this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.kick();
    }, this.options.flushMs);
    this.timer.unref();
  }

  private disarm(): void {
    if (this.timer === undefined) return;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private enforceCap(): void {
    const excess = this.pending.length - this.maxPending;
    if (excess <= 0) return;
    this.pending.splice(0, excess);
    // Counted here and reported once per drain, so an outage does not log once per request.
    this.dropped += excess;
  }

  private reportDrops(): void {
    if (this.dropped === 0) return;
    const dropped = this.dropped;
    this.dropped = 0;
    this.safeReport(new UsageRecordsDroppedError(dropped));
  }

  /** A throwing onError must not break the drain chain (every later flush would reject). */
  private safeReport(err: unknown): void {
    try {
      this.options.onError(err);
    } catch {
      // Nothing better to do: the reporter itself is broken.
    }
  }
}

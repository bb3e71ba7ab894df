import type { ApiKeyStore } from '../../adapters/api-keys/index.js';

/**
 * Remembers when each key was last used and writes those times in one batch per interval, so an
 * authenticated request never waits for a write (DESIGN.md 8: keep writes off the request path).
 */
export class KeyUsageRecorder {
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: ApiKeyStore,
    private readonly onError: (err: unknown) => void,
  ) {}

  record(keyId: string, atMs: number): void {
    const previous = this.pending.get(keyId);
    if (previous === undefined || previous < atMs) this.pending.set(keyId, atMs);
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.flush(), intervalMs);
    this.timer.unref();
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.store.touchKeys(batch);
    } catch (err) {
      // Keep the newest times for the next attempt rather than lose them.
      for (const [keyId, atMs] of batch) this.record(keyId, atMs);
      this.onError(err);
    }
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    await this.flush();
  }
}

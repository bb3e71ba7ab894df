import type { Ledger } from '../adapters/ledger/index.js';

/** Releases holds whose time is up (DESIGN.md 4), so money reserved by a crashed request is never stuck. */
export class HoldSweeper {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ledger: Ledger,
    private readonly now: () => number,
    private readonly onError: (err: unknown) => void,
  ) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.sweep(), intervalMs);
    this.timer.unref();
  }

  async sweep(): Promise<number> {
    try {
      return await this.ledger.expireHolds(this.now());
    } catch (err) {
      this.onError(err);
      return 0;
    }
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
  }
}

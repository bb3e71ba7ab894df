import { ApiError } from '../../errors/api-error.js';

export interface FairQueueSettings {
  /** Tasks running at once (the worker threads). */
  concurrency: number;
  /** Tasks waiting for a thread, over every owner; one more is refused with 503 tokenizer_busy. */
  maxWaiting: number;
  /** Tasks one owner may have waiting, so that no one owner fills the line and gets the others refused. */
  maxWaitingPerOwner: number;
}

interface Waiting {
  run: () => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

/**
 * 503 tokenizer_busy: the line is full, or a task ran past its time cap. Retry after a second: a slot opens as soon
 * as any one task ends, and each is time-capped.
 */
export function tokenizerBusy(message?: string): ApiError {
  return new ApiError('tokenizer_busy', message, { headers: { 'Retry-After': '1' } });
}

/**
 * Heavy work (token counting on worker threads) shared fairly between callers (issue 23: one caller's text cannot
 * delay another's beyond one task). Each owner (an account) has at most one task running and its own line; free
 * threads take the owners' lines in turn. So an account sending a flood of long text keeps one thread busy and
 * queues behind itself, and another caller's task waits for at most the one task that caller has running (when
 * every thread is taken, each by a different owner). The waiting line is bounded, in all and per owner (so one
 * owner cannot fill it and get the others refused): past either bound, 503 tokenizer_busy with Retry-After, before
 * anything is counted or held.
 */
export class FairTaskQueue {
  private readonly lines = new Map<string, Waiting[]>();
  /** Owners with a task running. */
  private readonly running = new Set<string>();
  private waiting = 0;

  constructor(private readonly settings: FairQueueSettings) {}

  run<T>(owner: string, task: () => Promise<T>): Promise<T> {
    let line = this.lines.get(owner);
    if (this.waiting >= this.settings.maxWaiting || (line?.length ?? 0) >= this.settings.maxWaitingPerOwner) {
      return Promise.reject(tokenizerBusy());
    }
    if (line === undefined) this.lines.set(owner, (line = []));
    const owned = line;
    return new Promise<T>((resolve, reject) => {
      owned.push({ run: task, resolve: resolve as (value: unknown) => void, reject });
      this.waiting += 1;
      this.dispatch();
    });
  }

  /** Starts the next task of each owner without one running, in turn order (a Map keeps insertion order). */
  private dispatch(): void {
    for (const [owner, line] of this.lines) {
      if (this.running.size >= this.settings.concurrency) return;
      if (this.running.has(owner)) continue;
      const next = line.shift()!;
      this.waiting -= 1;
      if (line.length === 0) this.lines.delete(owner);
      this.running.add(owner);
      void Promise.resolve()
        .then(next.run)
        .then(next.resolve, next.reject)
        .finally(() => this.done(owner));
    }
  }

  /** An owner's task ended: its line goes to the back of the turn order, behind everyone who waited meanwhile. */
  private done(owner: string): void {
    this.running.delete(owner);
    const line = this.lines.get(owner);
    if (line !== undefined) {
      this.lines.delete(owner);
      this.lines.set(owner, line);
    }
    this.dispatch();
  }
}

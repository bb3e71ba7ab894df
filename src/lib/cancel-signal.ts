/**
 * "The caller went away" for one request's calls: what every upstream call takes. A DOM AbortSignal fits this
 * shape (tests pass AbortController signals), and so does undici's `signal` option, which only checks
 * `aborted`, `reason` and the two listener methods.
 */
export interface CancelSignal {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/**
 * A one-shot CancelSignal and its trigger in one object, made for the per-request path. Node builds each
 * AbortSignal by re-parenting an EventTarget (`setPrototypeOf`), which allocates about 9 KB and survives
 * young-generation collections (measured; bench/README.md "Why the hot path looks the way it does"), and a request needs two. Every
 * listener here runs once, as `{ once: true }` would: a signal only ever aborts once.
 */
export class Canceller implements CancelSignal {
  aborted = false;
  reason: unknown = undefined;
  #listeners: (() => void)[] = [];

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.aborted) this.#listeners.push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    const at = this.#listeners.indexOf(listener);
    if (at !== -1) this.#listeners.splice(at, 1);
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    const listeners = this.#listeners;
    this.#listeners = [];
    for (const listener of listeners) listener();
  }
}

/**
 * The signal paid work runs under (issue "work done is work billed"): once a request is dispatched, the upstream
 * does the work, and bills it, whether or not the client stays. So the client's leaving cancels nothing: the work
 * ends by its own deadline and the caller pays for what was done, as if its answer had been lost on the way.
 */
export const UNCANCELLABLE: CancelSignal = Object.freeze({
  aborted: false,
  reason: undefined,
  addEventListener: () => undefined,
  removeEventListener: () => undefined,
});

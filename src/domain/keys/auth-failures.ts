import { ApiError } from '../../errors/api-error.js';

/**
 * Unknown API keys per client address over a sliding window (issue: a flood of random keys must not reach the
 * database). Each process counts its own: enough to keep one address from turning every request into a key
 * lookup; a flood spread over many addresses is the network's job. Memory stays bounded: an address keeps at
 * most `limit` times, and the least recently failing addresses are forgotten past `maxAddresses`.
 */
export class AuthFailures {
  readonly #failures = new Map<string, number[]>();

  constructor(private readonly options: { limit: number; windowMs: number; maxAddresses: number; now: () => number }) {}

  /** How long the address must wait before its next key lookup; 0 when it may look one up now. */
  waitMs(address: string): number {
    const times = this.#recent(address);
    if (times === undefined || times.length < this.options.limit) return 0;
    return times[0]! + this.options.windowMs - this.options.now();
  }

  /**
   * 429 `auth_rate_limited` with Retry-After while the address must wait (`message`: what it presented too many of;
   * the catalog's names unknown API keys); nothing otherwise. Called before a lookup, so a flood makes none.
   */
  refuseWhileOver(address: string, message?: string): void {
    const waitMs = this.waitMs(address);
    if (waitMs > 0)
      throw new ApiError('auth_rate_limited', message, {
        headers: { 'Retry-After': String(Math.ceil(waitMs / 1000)) },
      });
  }

  /** One more unknown key presented from the address. */
  record(address: string): void {
    const times = this.#recent(address) ?? [];
    times.push(this.options.now());
    if (times.length > this.options.limit) times.shift();
    this.#failures.delete(address); // re-inserted last: Map order is then least recently failing first
    this.#failures.set(address, times);
    if (this.#failures.size > this.options.maxAddresses)
      this.#failures.delete(this.#failures.keys().next().value as string);
  }

  /** The address's failure times still inside the window (older ones dropped), or undefined. */
  #recent(address: string): number[] | undefined {
    const times = this.#failures.get(address);
    if (times === undefined) return undefined;
    const cutoff = this.options.now() - this.options.windowMs;
    while (times.length > 0 && times[0]! <= cutoff) times.shift();
    if (times.length === 0) this.#failures.delete(address);
    return times;
  }
}

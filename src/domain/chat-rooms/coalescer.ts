/**
 * Shares one run of a lookup among the callers that ask for the same key within `windowMs` of its start (SPEC 4.2:
 * chat image polls are coalesced in a 2-second window), so a client polling in a tight loop, or many tabs, cost
 * one look at the job per window. A failed lookup is not kept: the next caller tries again.
 */
export class Coalescer<T> {
  private readonly entries = new Map<string, { value: Promise<T>; untilMs: number }>();

  constructor(
    private readonly windowMs: number,
    private readonly now: () => number,
  ) {}

  get(key: string, load: () => Promise<T>): Promise<T> {
    const nowMs = this.now();
    const entry = this.entries.get(key);
    if (entry !== undefined && entry.untilMs > nowMs) return entry.value;
    for (const [k, e] of this.entries) if (e.untilMs <= nowMs) this.entries.delete(k);
    const value = load();
    this.entries.set(key, { value, untilMs: nowMs + this.windowMs });
    value.catch(() => this.entries.delete(key));
    return value;
  }
}

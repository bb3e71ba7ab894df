import type { MemoryUsageLogStore } from '../usage-log/memory.js';
import type { KeyBudgetStore, KeyHoldOutcome, KeyHoldRequest, KeySpend, Micros } from './index.js';

interface Hold {
  keyId: string;
  amountMicros: Micros;
  expiresAtMs: number;
}

/**
 * In-process twin of the SQL store: the usage lines come from the usage log the memory ledger writes into. A
 * reserve reads, decides and inserts without yielding to the event loop, so reserves, releases and charges never
 * interleave with it, as the SQL store's lock per key makes them.
 */
export class MemoryKeyBudgetStore implements KeyBudgetStore {
  private readonly holds = new Map<string, Hold>();

  constructor(private readonly usage: MemoryUsageLogStore) {}

  async reserve(request: KeyHoldRequest): Promise<KeyHoldOutcome> {
    const { accountId, keyId, holdId, amountMicros, periodStartMs, nowMs } = request;
    if (this.holds.has(holdId)) return { ok: true };
    const spentMicros = this.spentSince(accountId, keyId, periodStartMs);
    const heldMicros = this.heldNow(keyId, nowMs);
    if (spentMicros + heldMicros + amountMicros > request.limitMicros) return { ok: false, spentMicros, heldMicros };
    this.holds.set(holdId, { keyId, amountMicros, expiresAtMs: request.expiresAtMs });
    return { ok: true };
  }

  async extend(holdId: string, expiresAtMs: number): Promise<void> {
    const hold = this.holds.get(holdId);
    if (hold !== undefined && hold.expiresAtMs < expiresAtMs) hold.expiresAtMs = expiresAtMs;
  }

  async release(holdId: string): Promise<void> {
    this.holds.delete(holdId);
  }

  async spend(query: { accountId: string; keyId: string; sinceMs: number; nowMs: number }): Promise<KeySpend> {
    const spentMicros = this.spentSince(query.accountId, query.keyId, query.sinceMs);
    return { spentMicros, heldMicros: this.heldNow(query.keyId, query.nowMs) };
  }

  private spentSince(accountId: string, keyId: string, sinceMs: number): Micros {
    return this.usage.totalsNow(accountId, { keyId, fromMs: sinceMs }).costMicros;
  }

  /** Σ the key's unexpired holds; expired ones are dropped on the way. */
  private heldNow(keyId: string, nowMs: number): Micros {
    let held = 0n;
    for (const [id, hold] of this.holds) {
      if (hold.expiresAtMs <= nowMs) this.holds.delete(id);
      else if (hold.keyId === keyId) held += hold.amountMicros;
    }
    return held;
  }
}

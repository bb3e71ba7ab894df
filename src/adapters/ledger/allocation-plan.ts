/**
 * The two lot algorithms of the ledger (README.md "Lots and allocations"), as pure functions so the memory and
 * SQL adapters cannot drift apart: each reads its rows, asks for a plan, and writes the plan.
 */
import type { Allocation, Micros } from './index.js';

/** A lot with money left, as the planner needs it. */
export interface LotSlice {
  id: string;
  remainingMicros: Micros;
  fxRateRubMicro: bigint;
}

/** Lots did not cover a posting: impossible while Σ lot remaining = balance holds, so it is corruption, not a business outcome. */
export class LotsExhaustedError extends Error {
  constructor(accountId: string, shortMicros: Micros) {
    super(`ledger: lots of ${accountId} are ${shortMicros} micros short of a posting (lots must cover the balance)`);
    this.name = 'LotsExhaustedError';
  }
}

/**
 * Takes `amount` from `lots` (already in spending order, oldest first): the oldest lot until it runs out, then
 * the next. One positive allocation per lot touched, in that order.
 */
export function planConsumption(accountId: string, lots: readonly LotSlice[], amount: Micros): Allocation[] {
  const plan: Allocation[] = [];
  let left = amount;
  for (const lot of lots) {
    if (left === 0n) break;
    const take = lot.remainingMicros < left ? lot.remainingMicros : left;
    if (take <= 0n) continue;
    plan.push({ lotId: lot.id, amountMicros: take, fxRateRubMicro: lot.fxRateRubMicro });
    left -= take;
  }
  if (left > 0n) throw new LotsExhaustedError(accountId, left);
  return plan;
}

/**
 * Gives `amount` back to the lots that paid for a transfer, most recently consumed first (its allocations read
 * backwards), each lot at most what the transfer still has from it after earlier refunds. Returns negative
 * allocations in restoring order. The caller has already checked `amount` ≤ what is left refundable.
 */
export function planRestore(
  consumed: readonly Allocation[],
  earlierRefunds: readonly Allocation[],
  amount: Micros,
): Allocation[] {
  const alreadyRestored = new Map<string, Micros>();
  for (const a of earlierRefunds) alreadyRestored.set(a.lotId, (alreadyRestored.get(a.lotId) ?? 0n) - a.amountMicros);
  const plan: Allocation[] = [];
  let left = amount;
  for (let i = consumed.length - 1; i >= 0 && left > 0n; i--) {
    const a = consumed[i]!;
    const restored = alreadyRestored.get(a.lotId) ?? 0n;
    const open = a.amountMicros - restored;
    if (open <= 0n) continue;
    const give = open < left ? open : left;
    plan.push({ lotId: a.lotId, amountMicros: -give, fxRateRubMicro: a.fxRateRubMicro });
    alreadyRestored.set(a.lotId, restored + give);
    left -= give;
  }
  if (left > 0n) throw new Error(`ledger: refund exceeds what the allocations can restore by ${left} micros`);
  return plan;
}

/** How much each lot's remaining moves for a plan: spending (positive allocations) lowers it, restoring raises it. */
export function lotDeltas(plan: readonly Allocation[]): Map<string, Micros> {
  const out = new Map<string, Micros>();
  for (const a of plan) out.set(a.lotId, (out.get(a.lotId) ?? 0n) - a.amountMicros);
  return out;
}

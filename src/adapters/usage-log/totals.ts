/**
 * How usage records fold into totals and daily roll-ups: one rule for both twins of the store and for the ledger,
 * which writes the roll-ups of a batch in the batch's own transaction.
 */
import { utcDay } from '../../lib/utc-days.js';
import type { DailyUsage, UsageRecord, UsageTotals } from './index.js';

/** The totals of nothing (a reduce's start, an empty store); frozen, as it is handed out. */
export const NO_USAGE: UsageTotals = Object.freeze({
  requests: 0,
  promptTokens: 0,
  completionTokens: 0,
  totalTokens: 0,
  costMicros: 0n,
  billedRubMicro: 0n,
  unbilledCostMicros: 0n,
});

export function addTotals(a: UsageTotals, b: UsageTotals): UsageTotals {
  return {
    requests: a.requests + b.requests,
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    costMicros: a.costMicros + b.costMicros,
    billedRubMicro: a.billedRubMicro + b.billedRubMicro,
    unbilledCostMicros: a.unbilledCostMicros + b.unbilledCostMicros,
  };
}

/** What one record adds to its totals. The same for both twins and the ledger's roll-ups. */
export function contribution(r: UsageRecord): UsageTotals {
  return {
    requests: 1,
    promptTokens: r.promptTokens,
    completionTokens: r.completionTokens,
    totalTokens: r.totalTokens,
    costMicros: r.costMicros,
    // index.ts: ruble figures only for ruble-billed records; the rest is priced at the market rate when shown.
    billedRubMicro: r.billedInRub ? (r.costRubMicro ?? 0n) : 0n,
    unbilledCostMicros: r.billedInRub ? 0n : r.costMicros,
  };
}

/** A roll-up increment with the token counts the port does not expose yet (kept for breakdowns). */
export interface DailyIncrement extends DailyUsage {
  accountId: string;
  cachedTokens: number;
  reasoningTokens: number;
}

/** Folds records into one increment per (account, day, model, kind), sorted by that key (a stable lock order). */
export function rollUp(records: readonly UsageRecord[]): DailyIncrement[] {
  const byKey = new Map<string, DailyIncrement>();
  for (const r of records) {
    const day = utcDay(r.createdAtMs);
    const key = JSON.stringify([r.accountId, day, r.model, r.kind]);
    let row = byKey.get(key);
    if (!row) {
      row = {
        accountId: r.accountId,
        day,
        model: r.model,
        kind: r.kind,
        cachedTokens: 0,
        reasoningTokens: 0,
        ...NO_USAGE,
      };
      byKey.set(key, row);
    }
    Object.assign(row, addTotals(row, contribution(r)));
    row.cachedTokens += r.cachedTokens;
    row.reasoningTokens += r.reasoningTokens;
  }
  return [...byKey.entries()].sort(([a], [b]) => compareText(a, b)).map(([, row]) => row);
}

/** Plain code-unit order, the same order the SQL store asks of the database (`collate "C"` on PostgreSQL). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

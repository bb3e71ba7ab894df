import type { DailyUsage, UsageTotals } from '../../adapters/usage-log/index.js';
import { addTotals, NO_USAGE } from '../../adapters/usage-log/totals.js';
import { invalidField } from '../../errors/api-error.js';
import { usdMicrosToRubMicro } from '../../lib/currency-conversion.js';
import { addDays, daysBetween, utcDay } from '../../lib/utc-days.js';
import { fromMicro, microsToUsd } from '../billing/money.js';

/** Summing totals is the usage log's own rule (both twins and the ledger's roll-ups fold with it). */
export { addTotals, NO_USAGE };

/**
 * A [from, to] range of days from optional query values (already checked to be real dates by the contract);
 * to defaults to today, from to 29 days before it; to is at most `maxDays` after from.
 */
export function dayRange(nowMs: number, from?: string, to?: string, maxDays = 366): { from: string; to: string } {
  const end = to ?? utcDay(nowMs);
  const start = from ?? addDays(end, -29);
  if (start > end) throw invalidField(['query', 'from'], 'must not be after to');
  if (daysBetween(start, end) > maxDays)
    throw invalidField(['query', 'to'], `must be at most ${maxDays} days after from`);
  return { from: start, to: end };
}

export interface WireAggregate {
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cost_usd: number;
  cost_rub?: number;
}

/** Rubles of a group: exact for ruble-billed charges, today's rate for the rest (SPEC 2.6). */
export function rubOfTotals(totals: UsageTotals, marketRateMicro: bigint): bigint {
  return totals.billedRubMicro + usdMicrosToRubMicro(totals.unbilledCostMicros, marketRateMicro);
}

/** SPEC 2.6: `*_rub` twins of every `*_usd` figure, for ruble-billed accounts only. */
export function toWireAggregate(totals: UsageTotals, rub: { marketRateMicro: bigint } | null): WireAggregate {
  const wire: WireAggregate = {
    requests: totals.requests,
    prompt_tokens: totals.promptTokens,
    completion_tokens: totals.completionTokens,
    total_tokens: totals.totalTokens,
    cost_usd: microsToUsd(totals.costMicros),
  };
  if (rub !== null) wire.cost_rub = fromMicro(rubOfTotals(totals, rub.marketRateMicro));
  return wire;
}

/** Sums roll-up rows into groups named by `keyOf`, keeping the first-seen order. */
export function groupTotals(rows: readonly DailyUsage[], keyOf: (row: DailyUsage) => string): Map<string, UsageTotals> {
  const groups = new Map<string, UsageTotals>();
  for (const row of rows) {
    const key = keyOf(row);
    groups.set(key, addTotals(groups.get(key) ?? NO_USAGE, row));
  }
  return groups;
}

import type { DailyUsage, UsageTotals } from '../../adapters/usage-log/index.js';
import { invalidField } from '../../errors/api-error.js';
import { fromMicro, microsToUsd, usdMicrosToRubMicro } from '../billing/money.js';

const DAY_MS = 86_400_000;

/** The last day utcDay formatted: every charge asks for today's, and formatting a Date is most of the call. */
const lastDay = { startMs: 0, endMs: 0, text: '' };

/** `YYYY-MM-DD` of a time, in UTC (usage days are UTC days). */
export function utcDay(ms: number): string {
  if (ms >= lastDay.startMs && ms < lastDay.endMs) return lastDay.text;
  const text = new Date(ms).toISOString().slice(0, 10);
  // A time outside the Date range throws above, so only real days are kept.
  lastDay.startMs = Math.floor(ms / DAY_MS) * DAY_MS;
  lastDay.endMs = lastDay.startMs + DAY_MS;
  lastDay.text = text;
  return text;
}

export function dayStartMs(day: string): number {
  return Date.parse(`${day}T00:00:00.000Z`);
}

export function addDays(day: string, days: number): string {
  return utcDay(dayStartMs(day) + days * DAY_MS);
}

/** The Monday (UTC) starting the ISO week of `day`. */
export function isoWeekStart(day: string): string {
  const weekday = (new Date(dayStartMs(day)).getUTCDay() + 6) % 7; // Monday = 0
  return addDays(day, -weekday);
}

/**
 * A [from, to] range of days from optional query values (already checked to be real dates by the contract);
 * to defaults to today, from to 29 days before it; to is at most `maxDays` after from.
 */
export function dayRange(nowMs: number, from?: string, to?: string, maxDays = 366): { from: string; to: string } {
  const end = to ?? utcDay(nowMs);
  const start = from ?? addDays(end, -29);
  if (start > end) throw invalidField(['query', 'from'], 'must not be after to');
  if ((dayStartMs(end) - dayStartMs(start)) / DAY_MS > maxDays)
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

/** Frozen: it is handed out as the totals of nothing (a reduce's start, an empty store). */
const EMPTY: UsageTotals = Object.freeze({
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
    groups.set(key, addTotals(groups.get(key) ?? EMPTY, row));
  }
  return groups;
}

export const NO_USAGE = EMPTY;

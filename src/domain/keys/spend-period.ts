import type { SpendPeriod } from '../../adapters/api-keys/index.js';
import { addDays, dayStartMs, isoWeekStart, utcDay } from '../../lib/utc-days.js';

/** The UTC period `nowMs` falls in: its first instant, inclusive, and the first of the next, exclusive. */
export interface PeriodBounds {
  startMs: number;
  endMs: number;
}

/**
 * Key spend limit periods are UTC (issue 26 item 6): `day` the calendar day, `week` the ISO week from Monday
 * 00:00, `month` the calendar month. A limit resets at `endMs`.
 */
export function spendPeriodBounds(period: SpendPeriod, nowMs: number): PeriodBounds {
  const today = utcDay(nowMs);
  switch (period) {
    case 'day':
      return { startMs: dayStartMs(today), endMs: dayStartMs(addDays(today, 1)) };
    case 'week': {
      const monday = isoWeekStart(today);
      return { startMs: dayStartMs(monday), endMs: dayStartMs(addDays(monday, 7)) };
    }
    case 'month': {
      const now = new Date(nowMs);
      const year = now.getUTCFullYear();
      const month = now.getUTCMonth();
      return { startMs: Date.UTC(year, month, 1), endMs: Date.UTC(year, month + 1, 1) };
    }
  }
}

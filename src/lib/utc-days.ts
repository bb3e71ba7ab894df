/** Days as `YYYY-MM-DD` strings of UTC (usage days are UTC days): naming them, and stepping between them. */
/** A UTC day: days have no leap seconds in JavaScript time. */
export const DAY_MS = 86_400_000;

/** The last day utcDay formatted: every charge asks for today's, and formatting a Date is most of the call. */
const lastDay = { startMs: 0, endMs: 0, text: '' };

/** `YYYY-MM-DD` of a time, in UTC (usage days are UTC days). */
export function utcDay(ms: number): string {
  if (ms >= lastDay.startMs && ms < lastDay.endMs) return lastDay.text;
  const text = new Date(ms).toISOString().slice(0, 10);
  // A time outside the Date range throws above, so only real days are kept.
  lastDay.startMs = utcDayStartMs(ms);
  lastDay.endMs = lastDay.startMs + DAY_MS;
  lastDay.text = text;
  return text;
}

/** The start (UTC midnight) of the day a time falls in. */
export function utcDayStartMs(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
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

/** Whole days between the starts of two days. */
export function daysBetween(from: string, to: string): number {
  return (dayStartMs(to) - dayStartMs(from)) / DAY_MS;
}

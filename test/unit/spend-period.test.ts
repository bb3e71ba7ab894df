import { describe, expect, it } from 'vitest';
import { spendPeriodBounds } from '../../src/domain/keys/spend-period.js';

const at = (iso: string) => Date.parse(iso);
const bounds = (period: 'day' | 'week' | 'month', iso: string) => {
  const { startMs, endMs } = spendPeriodBounds(period, at(iso));
  return [new Date(startMs).toISOString(), new Date(endMs).toISOString()];
};

describe('key spend limit periods (UTC, issue 26 item 6)', () => {
  it('a day is the UTC calendar day, whatever the hour', () => {
    expect(bounds('day', '2026-03-14T00:00:00.000Z')).toEqual(['2026-03-14T00:00:00.000Z', '2026-03-15T00:00:00.000Z']);
    expect(bounds('day', '2026-03-14T23:59:59.999Z')).toEqual(['2026-03-14T00:00:00.000Z', '2026-03-15T00:00:00.000Z']);
  });

  it('a week starts on Monday 00:00 UTC (ISO), Sunday included in the week before', () => {
    // 2026-03-16 is a Monday.
    expect(bounds('week', '2026-03-16T00:00:00.000Z')).toEqual([
      '2026-03-16T00:00:00.000Z',
      '2026-03-23T00:00:00.000Z',
    ]);
    expect(bounds('week', '2026-03-22T23:59:59.999Z')).toEqual([
      '2026-03-16T00:00:00.000Z',
      '2026-03-23T00:00:00.000Z',
    ]);
    expect(bounds('week', '2026-03-15T12:00:00.000Z')).toEqual([
      '2026-03-09T00:00:00.000Z',
      '2026-03-16T00:00:00.000Z',
    ]);
  });

  it('a week across a year boundary stays Monday to Monday', () => {
    // 2026-01-01 is a Thursday: its ISO week began on Monday 2025-12-29.
    expect(bounds('week', '2026-01-01T08:00:00.000Z')).toEqual([
      '2025-12-29T00:00:00.000Z',
      '2026-01-05T00:00:00.000Z',
    ]);
  });

  it('a month is the calendar month, of any length, December into January', () => {
    expect(bounds('month', '2026-02-28T23:59:59.999Z')).toEqual([
      '2026-02-01T00:00:00.000Z',
      '2026-03-01T00:00:00.000Z',
    ]);
    expect(bounds('month', '2028-02-29T10:00:00.000Z')).toEqual([
      '2028-02-01T00:00:00.000Z',
      '2028-03-01T00:00:00.000Z',
    ]);
    expect(bounds('month', '2026-12-31T23:59:59.999Z')).toEqual([
      '2026-12-01T00:00:00.000Z',
      '2027-01-01T00:00:00.000Z',
    ]);
    expect(bounds('month', '2027-01-01T00:00:00.000Z')).toEqual([
      '2027-01-01T00:00:00.000Z',
      '2027-02-01T00:00:00.000Z',
    ]);
  });

  it('every instant lies in its period: start ≤ now < end', () => {
    for (let ms = at('2026-01-01T00:00:00.000Z'); ms < at('2027-01-01T00:00:00.000Z'); ms += 7_777_777) {
      for (const period of ['day', 'week', 'month'] as const) {
        const { startMs, endMs } = spendPeriodBounds(period, ms);
        expect(startMs).toBeLessThanOrEqual(ms);
        expect(endMs).toBeGreaterThan(ms);
      }
    }
  });
});

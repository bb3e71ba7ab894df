import { describe, expect, it } from 'vitest';
import { addDays, isoWeekStart, utcDay } from '../../src/domain/usage/usage-aggregates.js';

const MIDNIGHT = Date.parse('2026-03-01T00:00:00.000Z');

describe('utcDay', () => {
  it('names the UTC day on both sides of midnight, in any order (it keeps the last day it formatted)', () => {
    expect(utcDay(MIDNIGHT - 1)).toBe('2026-02-28');
    expect(utcDay(MIDNIGHT)).toBe('2026-03-01');
    expect(utcDay(MIDNIGHT - 1)).toBe('2026-02-28');
    expect(utcDay(MIDNIGHT + 86_400_000 - 1)).toBe('2026-03-01');
    expect(utcDay(MIDNIGHT + 86_400_000)).toBe('2026-03-02');
  });

  it('handles days before 1970', () => {
    expect(utcDay(Date.parse('1969-12-31T23:59:59.999Z'))).toBe('1969-12-31');
    expect(utcDay(0)).toBe('1970-01-01');
    expect(utcDay(-1)).toBe('1969-12-31');
  });

  it('rejects a time that is not one', () => {
    expect(() => utcDay(Number.NaN)).toThrow(RangeError);
  });
});

describe('addDays and isoWeekStart', () => {
  it('step across months and find the Monday', () => {
    expect(addDays('2026-02-28', 1)).toBe('2026-03-01');
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28');
    expect(isoWeekStart('2026-11-22')).toBe('2026-11-16');
  });
});

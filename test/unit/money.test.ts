import { describe, expect, it } from 'vitest';
import { applyDiscount, microsToUsd, usdToMicros } from '../../src/domain/money.js';

describe('usdToMicros', () => {
  it.each([
    { usd: 0, micros: 0n },
    { usd: -0, micros: 0n },
    { usd: 1, micros: 1_000_000n },
    { usd: 0.0464, micros: 46_400n }, // 0.0464 * 1e6 = 46399.99999999999 in floats
    { usd: 0.07, micros: 70_000n }, // 0.07 * 1e6 = 70000.00000000001 in floats
    { usd: 0.11, micros: 110_000n },
    { usd: 0.1 + 0.2, micros: 300_000n }, // 0.30000000000000004
    { usd: 1.1 * 3, micros: 3_300_000n }, // 3.3000000000000003
    { usd: 0.3 - 0.1, micros: 200_000n }, // 0.19999999999999998
    { usd: 0.000001, micros: 1n },
    { usd: 0.123456, micros: 123_456n },
    { usd: 123456.123456, micros: 123_456_123_456n },
    { usd: 9_007_199.254740, micros: 9_007_199_254_740n },
  ])('$usd USD → $micros micros exactly', ({ usd, micros }) => {
    expect(usdToMicros(usd)).toBe(micros);
  });

  it.each([
    { usd: 0.0000005, micros: 1n }, // exactly half a micro rounds up
    { usd: 0.0000004, micros: 0n },
    { usd: 0.0000006, micros: 1n },
    { usd: 1.0000015, micros: 1_000_002n },
    { usd: 1.0000014, micros: 1_000_001n },
    { usd: 0.1234565, micros: 123_457n },
    { usd: 2.0000025, micros: 2_000_003n },
    { usd: 9.9999995, micros: 10_000_000n }, // the carry reaches the whole dollars
    { usd: 9.9999994, micros: 9_999_999n },
  ])('half-up at the 7th decimal: $usd → $micros', ({ usd, micros }) => {
    expect(usdToMicros(usd)).toBe(micros);
  });

  // Rounding happens once, on the exact decimal: 0.49 micro must not become 0.5 and then 1.
  it('does not round twice: 0.00000049 USD (0.49 micro) → 0 micros', () => {
    expect(usdToMicros(0.00000049)).toBe(0n);
  });

  it.each([-0.000001, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])('rejects %s with a RangeError', (usd) => {
    expect(() => usdToMicros(usd)).toThrow(RangeError);
  });
});

describe('microsToUsd', () => {
  it.each([
    { micros: 0n, usd: 0 },
    { micros: 1n, usd: 0.000001 },
    { micros: 46_400n, usd: 0.0464 },
    { micros: 41_760n, usd: 0.04176 },
    { micros: 1_000_000n, usd: 1 },
    { micros: 123_456_123_456n, usd: 123456.123456 },
  ])('$micros micros → $usd USD', ({ micros, usd }) => {
    expect(microsToUsd(micros)).toBe(usd);
  });

  it.each([0.0464, 0.07, 0.11, 2.5, 10.000005, 0.000001])('round-trips %s through micros unchanged', (usd) => {
    expect(microsToUsd(usdToMicros(usd))).toBe(usd);
  });
});

describe('applyDiscount', () => {
  it.each([
    { amount: 1_000_000n, percent: 0, expected: 1_000_000n },
    { amount: 1_000_000n, percent: 7.5, expected: 925_000n },
    { amount: 1_000_000n, percent: 10, expected: 900_000n },
    { amount: 1_000_000n, percent: 100, expected: 0n },
    { amount: 46_400n, percent: 10, expected: 41_760n },
    { amount: 110_000n, percent: 25, expected: 82_500n },
    { amount: 70_000n, percent: 7.5, expected: 64_750n },
    { amount: 1_000_000n, percent: 12.34, expected: 876_600n }, // two decimals are honoured
    { amount: 0n, percent: 10, expected: 0n },
  ])('$amount at $percent % → $expected', ({ amount, percent, expected }) => {
    expect(applyDiscount(amount, percent)).toBe(expected);
  });

  it.each([
    { amount: 1n, percent: 50, expected: 1n }, // 0.5 → 1
    { amount: 3n, percent: 50, expected: 2n }, // 1.5 → 2
    { amount: 5n, percent: 50, expected: 3n }, // 2.5 → 3 (half-up, not half-even)
    { amount: 13n, percent: 25, expected: 10n }, // 9.75 → 10
    { amount: 14n, percent: 25, expected: 11n }, // 10.5 → 11
    { amount: 11n, percent: 25, expected: 8n }, // 8.25 → 8
    { amount: 10n, percent: 7.5, expected: 9n }, // 9.25 → 9
    { amount: 1n, percent: 7.5, expected: 1n }, // 0.925 → 1
    { amount: 15n, percent: 10, expected: 14n }, // 13.5 → 14
    { amount: 10_000_005n, percent: 10, expected: 9_000_005n }, // 9000004.5 → 9000005
  ])('rounds half-up: $amount at $percent % → $expected', ({ amount, percent, expected }) => {
    expect(applyDiscount(amount, percent)).toBe(expected);
  });

  it('treats a negative percent as no discount and anything above 100 % as free', () => {
    expect(applyDiscount(1_000n, -5)).toBe(1_000n);
    expect(applyDiscount(1_000n, 150)).toBe(0n);
  });
});

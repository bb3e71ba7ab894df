import { describe, expect, it } from 'vitest';
import {
  microsToUsd,
  payableBasisPoints,
  scaledToNumber,
  usdToMicros,
  usdToPicos,
} from '../../src/domain/billing/money.js';

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
    { usd: 9_007_199.25474, micros: 9_007_199_254_740n },
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

  it.each([-0.000001, -1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'rejects %s with a RangeError',
    (usd) => {
      expect(() => usdToMicros(usd)).toThrow(RangeError);
    },
  );
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

describe('payableBasisPoints', () => {
  it.each([
    { percent: 0, expected: 10_000n },
    { percent: 7.5, expected: 9_250n },
    { percent: 10, expected: 9_000n },
    { percent: 12.34, expected: 8_766n }, // two decimals are honoured
    { percent: 100, expected: 0n },
    { percent: -5, expected: 10_000n }, // a negative percent is no discount
    { percent: 150, expected: 0n }, // anything above 100 % is free
  ])('$percent % off leaves $expected of 10,000', ({ percent, expected }) => {
    expect(payableBasisPoints(percent)).toBe(expected);
  });
});

describe('usdToPicos and scaledToNumber: prices finer than a micro-dollar stay exact', () => {
  it.each([
    { usd: 0.000001, picos: 1_000_000n },
    { usd: 0.000015, picos: 15_000_000n },
    { usd: 1.5e-7, picos: 150_000n },
    { usd: 2.5, picos: 2_500_000_000_000n },
  ])('$usd USD → $picos pico-USD and back', ({ usd, picos }) => {
    expect(usdToPicos(usd)).toBe(picos);
    expect(scaledToNumber(picos, 12)).toBe(usd);
  });

  it('shows a discounted rate at its full precision: $0.000015 at 10 % off is $0.0000135, $0.000001 at 7.5 % off $0.000000925', () => {
    expect(scaledToNumber(usdToPicos(0.000015) * payableBasisPoints(10), 16)).toBe(0.0000135);
    expect(scaledToNumber(usdToPicos(0.000001) * payableBasisPoints(7.5), 16)).toBe(0.000000925);
    expect(scaledToNumber(0n, 16)).toBe(0);
  });
});

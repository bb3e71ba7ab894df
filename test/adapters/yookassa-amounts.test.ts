/**
 * Kopecks ↔ YooKassa's decimal strings (src/adapters/payment-processor/yookassa-amounts.ts): exact both ways, with
 * no float in between (research/payments.md 6.4 item 8), including the smallest and largest deposit amounts and the
 * shortened forms YooKassa may answer with ("2.5", "2").
 */
import { describe, expect, it } from 'vitest';
import { decimalToKopecks, kopecksToDecimal } from '../../src/adapters/payment-processor/yookassa-amounts.js';

describe('kopecksToDecimal: what YooKassa is sent', () => {
  it.each([
    [1n, '0.01'],
    [10n, '0.10'],
    [99n, '0.99'],
    [100n, '1.00'],
    [123_456n, '1234.56'],
    [10_000_000n, '100000.00'],
    [70_000_000n, '700000.00'],
    // Far beyond a float's exact integers (2^53 kopecks): still exact.
    [9_007_199_254_740_993n, '90071992547409.93'],
  ])('%s kopecks → %s', (kopecks, decimal) => {
    expect(kopecksToDecimal(kopecks)).toBe(decimal);
  });

  it('refuses zero and negative amounts: nothing is ever charged for them', () => {
    expect(() => kopecksToDecimal(0n)).toThrow(RangeError);
    expect(() => kopecksToDecimal(-100n)).toThrow(RangeError);
  });
});

describe('decimalToKopecks: what YooKassa answers', () => {
  it.each([
    ['0.01', 1n],
    ['100000.00', 10_000_000n],
    ['1234.56', 123_456n],
    ['2.5', 250n],
    ['0.1', 10n],
    ['2', 200n],
    ['0.00', 0n],
  ])('%s → %s kopecks', (decimal, kopecks) => {
    expect(decimalToKopecks(decimal)).toBe(kopecks);
  });

  it.each([
    ['three decimals', '1.234'],
    ['a sign', '-1.00'],
    ['an exponent', '1e3'],
    ['a comma', '1,00'],
    ['no whole part', '.50'],
    ['a trailing point', '1.'],
    ['spaces', ' 1.00'],
    ['an empty string', ''],
    ['a number, not a string', 1.5],
    ['null', null],
  ])('reads %s as nothing', (_what, value) => {
    expect(decimalToKopecks(value)).toBeNull();
  });

  it('round-trips every amount exactly, small and very large', () => {
    const amounts = [1n, 5n, 50n, 101n, 999_999n, 123_456_789_012n];
    for (let i = 0; i < 200; i++) amounts.push(BigInt(Math.floor(Math.random() * 1e9)) * 1000n + BigInt(i) + 1n);
    for (const kopecks of amounts) expect(decimalToKopecks(kopecksToDecimal(kopecks))).toBe(kopecks);
  });
});

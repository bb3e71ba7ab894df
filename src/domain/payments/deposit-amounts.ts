import type { Micros } from '../../adapters/ledger/index.js';
import type { Currency } from '../../adapters/payment-processor/index.js';

/**
 * What a deposit's money is worth in the ledger's unit, integer micro-USD (DESIGN.md 4). USD cents are 10,000
 * micro-USD; rubles become dollars at the deposit's own rate (SPEC 4.3: the lot keeps it), half-up; one USDT base
 * unit (6 decimals) is one micro-USD (issue 27 item 3).
 */
const MICROS_PER_CENT = 10_000n;
const MICRO = 1_000_000n;

/** Kopecks (or cents) → micro-rubles (micro-dollars). */
export const minorToMicro = (minor: bigint): bigint => minor * MICROS_PER_CENT;

/** A processor's amount in micro-USD; `fxRateRubMicro` is RUB per USD × 1e6, used for rubles only. */
export function creditedMicros(amountMinor: bigint, currency: Currency, fxRateRubMicro: bigint): Micros {
  if (currency === 'usd') return minorToMicro(amountMinor);
  return (minorToMicro(amountMinor) * MICRO + fxRateRubMicro / 2n) / fxRateRubMicro;
}

/** A wire amount (dollars or rubles with at most two decimals, as the contract allows) in minor units, exactly. */
export function toMinor(amount: number): bigint {
  return BigInt(Math.round(amount * 100));
}

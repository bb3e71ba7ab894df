/**
 * Money is integer micro-USD (DESIGN.md 3): `bigint` inside, a float only at the JSON edge, half-up rounding
 * at $0.000001 (SPEC 8: cost rounding).
 */
export type Micros = bigint;

const MICROS_PER_USD = 1_000_000;

/** Conversions kept: catalog prices are few; once the cap is reached, an amount not kept is parsed each time. */
const CONVERTED_CAP = 4096;
const converted = new Map<number, Micros>();
const convertedPicos = new Map<number, bigint>();

/**
 * A decimal USD amount from a data file or the wire → micros, half-up. Works on the number's shortest decimal
 * form (what JSON carried), so 0.0464 → 46400 exactly and half a micro rounds up, with no binary-float drift.
 */
export function usdToMicros(usd: number): Micros {
  return cachedParse(converted, usd, 6);
}

/**
 * A catalog price → pico-USD (10⁻¹² USD), half-up: a unit price finer than a micro-dollar (a character of speech
 * at $0.000001, a discounted one at $0.0000009) stays exact until the cost is rounded (SPEC 2.5, 8).
 */
export function usdToPicos(usd: number): bigint {
  return cachedParse(convertedPicos, usd, 12);
}

function cachedParse(cache: Map<number, bigint>, usd: number, places: number): bigint {
  // Every paid request converts its catalog prices several times; parsing the decimal form each time showed in profiles.
  const known = cache.get(usd);
  if (known !== undefined) return known;
  const parsed = parseUsd(usd, places);
  if (cache.size < CONVERTED_CAP) cache.set(usd, parsed);
  return parsed;
}

/** `usd` as an integer count of 10^-places USD, half-up. */
function parseUsd(usd: number, places: number): bigint {
  if (!Number.isFinite(usd) || usd < 0) throw new RangeError(`not a non-negative USD amount: ${usd}`);
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(usd));
  if (match === null) throw new RangeError(`not a decimal USD amount: ${usd}`);
  const [, whole = '0', fraction = '', exponent = '0'] = match;
  const digits = BigInt(whole + fraction);
  // How many decimal places the digits carry beyond the last one kept.
  const excess = fraction.length - Number(exponent) - places;
  if (excess <= 0) return digits * 10n ** BigInt(-excess);
  const divisor = 10n ** BigInt(excess);
  return (digits + divisor / 2n) / divisor;
}

/** An integer count of 10^-places units → the decimal number it is exactly (as near as a float gets), for the JSON edge. */
export function scaledToNumber(value: bigint, places: number): number {
  const digits = value.toString().padStart(places + 1, '0');
  return Number(`${digits.slice(0, -places)}.${digits.slice(-places)}`);
}

export function microsToUsd(micros: Micros): number {
  return Number(micros) / MICROS_PER_USD;
}

/** Any micro-unit amount (micro-RUB, a rate × 1e6) → its decimal value for the JSON edge. */
export const fromMicro: (micro: bigint) => number = microsToUsd;

/** What is left to pay after `percent` off, in basis points (10,000 = all); percent may have two decimals (7.5 % is 750). */
export function payableBasisPoints(percent: number): bigint {
  const basisPoints = BigInt(Math.round(percent * 100));
  if (basisPoints <= 0n) return 10_000n;
  if (basisPoints >= 10_000n) return 0n;
  return 10_000n - basisPoints;
}

/** RUB per USD as a decimal (e.g. 92.35) → micro-units (92_350_000), the form rates are stored in. */
export function fxRateToMicro(rubPerUsd: number): bigint {
  return usdToMicros(rubPerUsd);
}

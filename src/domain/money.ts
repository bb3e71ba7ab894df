/**
 * Money is integer micro-USD (DESIGN.md 3): `bigint` inside, a float only at the JSON edge, half-up rounding
 * at $0.000001 (SPEC 8: cost rounding).
 */
export type Micros = bigint;

const MICROS_PER_USD = 1_000_000;

/** Conversions kept: catalog prices are few; once the cap is reached, an amount not kept is parsed each time. */
const CONVERTED_CAP = 4096;
const converted = new Map<number, Micros>();

/**
 * A decimal USD amount from a data file or the wire → micros, half-up. Works on the number's shortest decimal
 * form (what JSON carried), so 0.0464 → 46400 exactly and half a micro rounds up, with no binary-float drift.
 */
export function usdToMicros(usd: number): Micros {
  // Every paid request converts its catalog prices several times; parsing the decimal form each time showed in profiles.
  const known = converted.get(usd);
  if (known !== undefined) return known;
  const micros = parseUsd(usd);
  if (converted.size < CONVERTED_CAP) converted.set(usd, micros);
  return micros;
}

function parseUsd(usd: number): Micros {
  if (!Number.isFinite(usd) || usd < 0) throw new RangeError(`not a non-negative USD amount: ${usd}`);
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(usd));
  if (match === null) throw new RangeError(`not a decimal USD amount: ${usd}`);
  const [, whole = '0', fraction = '', exponent = '0'] = match;
  const digits = BigInt(whole + fraction);
  // How many decimal places the digits carry beyond the sixth.
  const excess = fraction.length - Number(exponent) - 6;
  if (excess <= 0) return digits * 10n ** BigInt(-excess);
  const divisor = 10n ** BigInt(excess);
  return (digits + divisor / 2n) / divisor;
}

export function microsToUsd(micros: Micros): number {
  return Number(micros) / MICROS_PER_USD;
}

/** Any micro-unit amount (micro-RUB, a rate × 1e6) → its decimal value for the JSON edge. */
export const fromMicro: (micro: bigint) => number = microsToUsd;

/** `amount × (100 − percent)/100`, half-up; percent may have two decimals (7.5 % is 750 basis points). */
export function applyDiscount(amount: Micros, percent: number): Micros {
  const basisPoints = BigInt(Math.round(percent * 100));
  if (basisPoints <= 0n) return amount;
  if (basisPoints >= 10_000n) return 0n;
  return (amount * (10_000n - basisPoints) + 5_000n) / 10_000n;
}

/** RUB per USD as a decimal (e.g. 92.35) → micro-units (92_350_000), the form rates are stored in. */
export function fxRateToMicro(rubPerUsd: number): bigint {
  return usdToMicros(rubPerUsd);
}

/** micro-USD at a rate (RUB per USD × 1e6) → micro-RUB, half-up once. */
export function usdMicrosToRubMicro(micros: Micros, fxRateRubMicro: bigint): bigint {
  return (micros * fxRateRubMicro + 500_000n) / 1_000_000n;
}

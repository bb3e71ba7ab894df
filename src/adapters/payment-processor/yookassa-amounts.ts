/**
 * YooKassa's amounts are decimal strings of the currency's major unit (`{"value": "1234.56", "currency": "RUB"}`,
 * API v3 "Amount"); the ledger counts kopecks as bigint (SPEC 4.3, issue 27). Both ways are exact string and integer
 * work: a float never holds money here (research/payments.md 6.4 item 8).
 */

/** At most two decimals, as YooKassa writes them; it may drop trailing zeros ("2.5", "2"), so one or none are read too. */
const DECIMAL = /^(\d{1,15})(?:\.(\d{1,2}))?$/;

/** kopecks → the decimal string YooKassa takes ("0.01", "100000.00"); only positive amounts are ever asked for. */
export function kopecksToDecimal(kopecks: bigint): string {
  if (kopecks <= 0n) throw new RangeError(`an amount to charge must be positive (got ${kopecks} kopecks)`);
  return `${kopecks / 100n}.${(kopecks % 100n).toString().padStart(2, '0')}`;
}

/** The decimal string YooKassa answered → kopecks; null when it is not a plain non-negative decimal of 0–2 places. */
export function decimalToKopecks(value: unknown): bigint | null {
  if (typeof value !== 'string') return null;
  const match = DECIMAL.exec(value);
  if (match === null) return null;
  return BigInt(match[1]!) * 100n + BigInt((match[2] ?? '').padEnd(2, '0'));
}

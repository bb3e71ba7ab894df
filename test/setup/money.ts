/**
 * Money as the tests read it. The API shows USD as JSON numbers rounded to $0.000001 (SPEC "usage.cost"); the
 * ledger holds integer micro-USD. Tests convert with their own rule rather than the service's, so a wrong
 * conversion in src/ cannot make a wrong charge look right.
 */

/** USD at the JSON edge → integer micro-USD. */
export const micros = (usd: number): bigint => BigInt(Math.round(usd * 1e6));

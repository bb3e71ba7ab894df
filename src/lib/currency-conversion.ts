/** micro-USD at a rate (RUB per USD × 1e6) → micro-RUB, half-up once (SPEC 2.6: ruble billing). */
export function usdMicrosToRubMicro(micros: bigint, fxRateRubMicro: bigint): bigint {
  return (micros * fxRateRubMicro + 500_000n) / 1_000_000n;
}

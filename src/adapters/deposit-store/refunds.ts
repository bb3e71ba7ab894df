import type { DepositStatus } from './index.js';

/** What a deposit has given back after `addedMicros` more, never past what it credited, and the status that says so. */
export function afterRefund(
  creditedMicros: bigint,
  refundedMicros: bigint,
  addedMicros: bigint,
): { refundedMicros: bigint; status: DepositStatus } {
  const sum = refundedMicros + addedMicros;
  const refunded = sum < creditedMicros ? sum : creditedMicros;
  return { refundedMicros: refunded, status: refunded >= creditedMicros ? 'refunded' : 'partially_refunded' };
}

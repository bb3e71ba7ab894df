import type { WithdrawalsContext } from './withdrawals-context.js';

export interface Withdrawable {
  /** What may leave now (amount + fee): matured earnings less active withdrawals, at most the available balance. */
  withdrawableMicros: bigint;
  /** Every earning past its hold period: what all active withdrawals together may reach (the store's cap). */
  maturedMicros: bigint;
  /** Earnings still in their hold period. */
  maturingMicros: bigint;
}

const atLeastZero = (micros: bigint): bigint => (micros > 0n ? micros : 0n);

/**
 * Withdrawals take provider earnings only (issue 27 item 4; research/payments.md 5.3): never deposited money, and
 * an earning only once it is older than the hold period, so a renter's chargeback lands before its money can leave.
 * Money is fungible in the balance, so the rule is on totals: everything ever withdrawn stays within everything
 * ever earned and matured, and what leaves now within the balance.
 */
export async function withdrawable(ctx: WithdrawalsContext, accountId: string): Promise<Withdrawable> {
  const nowMs = ctx.now();
  const [{ maturedMicros: matured, totalMicros: earned }, active, balance] = await Promise.all([
    ctx.earnings(accountId, nowMs - ctx.policy.earningsHoldMs),
    ctx.withdrawals.activeTotal(accountId),
    ctx.ledger.getBalance(accountId),
  ]);
  const earnedLeftMicros = atLeastZero(matured - active);
  const available = atLeastZero(balance.availableMicros);
  return {
    withdrawableMicros: earnedLeftMicros < available ? earnedLeftMicros : available,
    maturedMicros: matured,
    maturingMicros: atLeastZero(earned - matured),
  };
}

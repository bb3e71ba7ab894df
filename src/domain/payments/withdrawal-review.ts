import type { WithdrawalRecord } from '../../adapters/withdrawal-store/index.js';
import { type WithdrawalBooks, withdrawalHoldId } from './withdrawals-context.js';

/**
 * The operator's side of withdrawals above WITHDRAW_APPROVAL_USD (issue 27 item 4; `admin payments withdrawals`).
 * Each answers the withdrawal as it is afterwards, or null when it was in no state the step applies to.
 */

/** pending_review → approved: the signer takes it from there. */
export function approveWithdrawal(ctx: WithdrawalBooks, id: string, operator: string) {
  return ctx.withdrawals.transition(id, ['pending_review'], { status: 'approved', approvedBy: operator }, ctx.now());
}

/**
 * pending_review or approved (not yet signed) → rejected, then its hold is released. In that order: the signer
 * signs only approved withdrawals, so once this one is rejected nothing can send it, and giving its money back is
 * safe. Run again on a rejected withdrawal, it releases the hold if a crash came between the two.
 */
export async function rejectWithdrawal(
  ctx: WithdrawalBooks,
  id: string,
  reason: string,
): Promise<WithdrawalRecord | null> {
  const nowMs = ctx.now();
  const rejected =
    (await ctx.withdrawals.transition(
      id,
      ['pending_review', 'approved'],
      { status: 'rejected', failureReason: reason, finishedAtMs: nowMs },
      nowMs,
    )) ?? (await ctx.withdrawals.get(id));
  if (rejected?.status !== 'rejected') return null;
  await ctx.ledger.release({ holdId: withdrawalHoldId(id), nowMs });
  return rejected;
}

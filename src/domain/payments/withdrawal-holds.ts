import type { WithdrawalRecord } from '../../adapters/withdrawal-store/index.js';
import { type WithdrawalsContext, withdrawalHoldId } from './withdrawals-context.js';

/** A withdrawal's hold outlives any review or retry: it ends by settlement or release, never by expiry. */
const HOLD_TTL_MS = 365 * 24 * 3_600_000;

/**
 * requested → held: the amount and fee move from available to held in the ledger (`withdrawal:<id>`, so a retry
 * after a crash holds once), then the withdrawal waits for the signer, or for an operator above the threshold. A
 * balance that no longer covers it (spent since it was admitted) fails it, with nothing held.
 */
export async function placeHold(ctx: WithdrawalsContext, withdrawal: WithdrawalRecord): Promise<WithdrawalRecord> {
  const nowMs = ctx.now();
  const held = await ctx.ledger.hold({
    id: withdrawalHoldId(withdrawal.id),
    accountId: withdrawal.accountId,
    amountMicros: withdrawal.amountMicros + withdrawal.feeMicros,
    nowMs,
    ttlMs: HOLD_TTL_MS,
  });
  const change = held.ok
    ? withdrawal.amountMicros > ctx.policy.approvalMicros
      ? ({ status: 'pending_review' } as const)
      : ({ status: 'approved', approvedBy: 'auto' } as const)
    : ({ status: 'failed', failureReason: 'The balance no longer covers it', finishedAtMs: nowMs } as const);
  const moved = await ctx.withdrawals.transition(withdrawal.id, ['requested'], change, nowMs);
  return moved ?? (await ctx.withdrawals.get(withdrawal.id)) ?? withdrawal;
}

/**
 * A withdrawal that will never send gives its amount and fee back: the ledger hold is released (a replay, after a
 * crash, finds it voided and goes on), then the state changes. Called only where the outcome cannot change any
 * more: a transaction reverted in a solidified block, or provably expired.
 */
export async function releaseAndFail(
  ctx: WithdrawalsContext,
  withdrawal: WithdrawalRecord,
  reason: string,
): Promise<WithdrawalRecord | null> {
  const nowMs = ctx.now();
  const released = await ctx.ledger.release({ holdId: withdrawalHoldId(withdrawal.id), nowMs });
  if (!released.ok && !(released.reason === 'hold_not_pending' && released.status === 'voided')) return null;
  return ctx.withdrawals.transition(
    withdrawal.id,
    ['requested', 'signed', 'broadcast'],
    { status: 'failed', failureReason: reason, finishedAtMs: nowMs },
    nowMs,
  );
}

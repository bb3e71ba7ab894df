import type { WithdrawalRecord } from '../../adapters/withdrawal-store/index.js';
import { placeHold, releaseAndFail } from './withdrawal-holds.js';
import { type WithdrawalRail, type WithdrawalsContext, withdrawalHoldId } from './withdrawals-context.js';

/** A request still `requested` this long after it was made lost its process between admission and hold. */
const ORPHAN_AFTER_MS = 30_000;
const BATCH = 50;

/**
 * Moves withdrawals along after the signer (issue 27 item 4, research/payments.md 5.1 steps 5-7, 8.2), in every
 * gateway process, every WITHDRAW_POLL_MS. Each step reads the chain's final word before it writes, and every write
 * is idempotent (ledger ids, compare-and-set states), so two processes or a restart after kill -9 at any instant
 * leave each withdrawal exact:
 * - `requested` left behind by a crash: the hold is placed (or found placed) and the withdrawal goes on;
 * - `signed` / `broadcast`: the stored bytes are sent again until a solidified block answers; SUCCESS settles the
 *   hold (amount leaves, the fee is revenue) then completes; a FAILED receipt releases it then fails; absent from
 *   the solidified chain once its head is past the transaction's expiration (+ margin), it can never land: release,
 *   fail. Nothing is ever signed here: only the signer's one transaction is sent.
 */
export async function advanceWithdrawals(ctx: WithdrawalsContext, onUnexpected: (err: unknown) => void): Promise<void> {
  const rail = ctx.rail;
  if (rail === null) return;
  const orphanedBefore = ctx.now() - ORPHAN_AFTER_MS;
  for (const withdrawal of await ctx.withdrawals.inStatus(['requested'], BATCH)) {
    if (withdrawal.createdAtMs < orphanedBefore) await guarded(onUnexpected, () => placeHold(ctx, withdrawal));
  }
  for (const withdrawal of await ctx.withdrawals.inStatus(['signed', 'broadcast'], BATCH)) {
    await guarded(onUnexpected, () => advanceOnChain(ctx, rail, withdrawal));
  }
}

async function guarded(onUnexpected: (err: unknown) => void, step: () => Promise<unknown>): Promise<void> {
  try {
    await step();
  } catch (err) {
    onUnexpected(err);
  }
}

async function advanceOnChain(ctx: WithdrawalsContext, rail: WithdrawalRail, withdrawal: WithdrawalRecord) {
  const signed = withdrawal.signed!;
  const state = await rail.chain.transactionInfo(signed.txid, { solid: true });
  if (state.kind === 'in_block') {
    if (state.status === 'SUCCESS') return complete(ctx, withdrawal, state.blockNumber);
    return releaseAndFail(ctx, withdrawal, `The transaction failed on chain (${state.receiptResult ?? 'FAILED'})`);
  }
  const solidHead = await rail.chain.solidHead();
  if (solidHead.timestampMs > signed.expirationMs + ctx.policy.expiryMarginMs)
    return releaseAndFail(ctx, withdrawal, 'The transaction expired before any block took it');
  const sent = await rail.chain.broadcastHex(signed.hex);
  if (sent.kind === 'rejected') throw new Error(`broadcast of ${withdrawal.id} refused: ${sent.code} ${sent.message}`);
  if (withdrawal.status === 'signed')
    await ctx.withdrawals.transition(withdrawal.id, ['signed'], { status: 'broadcast' }, ctx.now());
}

/** Settles the hold (replayed after a crash, it finds it posted), then completes the withdrawal. */
async function complete(ctx: WithdrawalsContext, withdrawal: WithdrawalRecord, blockNumber: number) {
  const nowMs = ctx.now();
  const settled = await ctx.ledger.settle({
    holdId: withdrawalHoldId(withdrawal.id),
    amountMicros: withdrawal.amountMicros + withdrawal.feeMicros,
    nowMs,
  });
  if (!settled.ok && !(settled.reason === 'hold_not_pending' && settled.status === 'posted'))
    throw new Error(
      `withdrawal ${withdrawal.id} confirmed on chain but its hold could not be settled: ${settled.reason}`,
    );
  await ctx.withdrawals.transition(
    withdrawal.id,
    ['signed', 'broadcast'],
    { status: 'completed', blockNumber, finishedAtMs: nowMs },
    nowMs,
  );
}

import type { CapRefusal, WithdrawalRecord } from '../../adapters/withdrawal-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { addDays, dayStartMs, utcDay } from '../../lib/utc-days.js';
import { checkSecondFactor } from '../accounts/second-factor-check.js';
import { assertNoDebt } from '../billing/debt-guard.js';
import { microsToUsd } from '../billing/money.js';
import { withdrawable } from './withdrawable.js';
import { loginWithSecondFactor, ownAddress, withdrawalRail } from './withdrawal-addresses.js';
import { placeHold } from './withdrawal-holds.js';
import type { WithdrawalsContext } from './withdrawals-context.js';

export interface WithdrawalRequest {
  addressId: string;
  amountMicros: bigint;
  totp?: string | undefined;
}

/**
 * A withdrawal of earnings (issue 27 item 4, research/payments.md 8.2): checked (a second factor set up, no debt,
 * the service's bounds, a cooled address of the account's book, matured earnings, the daily limits, then the code),
 * admitted by the store in one serialized step, then held in the ledger. What follows (review, signing, broadcast,
 * confirmation) happens outside the request: withdrawal-pipeline.ts here, and the signer process.
 */
export async function requestWithdrawal(
  ctx: WithdrawalsContext,
  account: { id: string; debtMicros: bigint },
  request: WithdrawalRequest,
  clientAddress: string,
): Promise<WithdrawalRecord> {
  withdrawalRail(ctx);
  const login = await loginWithSecondFactor(ctx, account.id);
  assertNoDebt(account);
  const { policy } = ctx;
  if (request.amountMicros < policy.minMicros || request.amountMicros > policy.maxMicros)
    throw new ApiError('invalid_withdrawal', undefined, {
      meta: { min_usd: microsToUsd(policy.minMicros), max_usd: microsToUsd(policy.maxMicros) },
      param: 'amount_usd',
    });
  const destination = await ownAddress(ctx, account.id, request.addressId);
  const nowMs = ctx.now();
  if (destination.usableFromMs > nowMs)
    throw new ApiError('withdrawal_address_cooling', undefined, {
      meta: { usable_from: new Date(destination.usableFromMs).toISOString() },
      headers: { 'Retry-After': String(Math.ceil((destination.usableFromMs - nowMs) / 1000)) },
    });
  const total = request.amountMicros + policy.feeMicros;
  const can = await withdrawable(ctx, account.id);
  if (total > can.withdrawableMicros) throw notWithdrawable(can.withdrawableMicros);
  const today = utcDay(nowMs);
  const withdrawal = {
    id: newId('wd'),
    accountId: account.id,
    address: destination.address,
    amountMicros: request.amountMicros,
    feeMicros: policy.feeMicros,
    createdAtMs: nowMs,
  };
  const caps = {
    accountTotalMicros: can.maturedMicros,
    accountDailyMicros: policy.dailyAccountMicros,
    globalDailyMicros: policy.dailyTotalMicros,
    dayStartMs: dayStartMs(today),
  };
  const refusal = await ctx.withdrawals.check(withdrawal, caps);
  if (refusal) throw capReached(refusal, today, nowMs);
  // Last before anything is written: a code works once, so a refusal above must not have spent it.
  await checkSecondFactor(ctx.auth, login, request.totp, clientAddress);
  // The store decides: another request may have taken the room since the check.
  const admitted = await ctx.withdrawals.create(withdrawal, caps);
  if (!admitted.ok) throw capReached(admitted, today, nowMs);
  const held = await placeHold(ctx, admitted.withdrawal);
  if (held.status === 'failed') throw notWithdrawable(0n);
  return held;
}

const notWithdrawable = (micros: bigint): ApiError =>
  new ApiError('insufficient_withdrawable', undefined, { meta: { withdrawable_usd: microsToUsd(micros) } });

/** A cap the withdrawal would pass: what the account may still withdraw, or the day's limit and when it resets. */
function capReached(refusal: CapRefusal, today: string, nowMs: number): ApiError {
  if (refusal.reason === 'account_total') return notWithdrawable(refusal.remainingMicros);
  const resetsAtMs = dayStartMs(addDays(today, 1));
  return new ApiError('withdrawal_limit_reached', undefined, {
    meta: { remaining_usd: microsToUsd(refusal.remainingMicros), resets_at: new Date(resetsAtMs).toISOString() },
    headers: { 'Retry-After': String(Math.ceil((resetsAtMs - nowMs) / 1000)) },
  });
}

/** The account's own withdrawal, or 404 `withdrawal_not_found`. */
export async function ownWithdrawal(ctx: WithdrawalsContext, accountId: string, id: string): Promise<WithdrawalRecord> {
  const withdrawal = await ctx.withdrawals.get(id);
  if (withdrawal === null || withdrawal.accountId !== accountId)
    throw new ApiError('withdrawal_not_found', undefined, { notFound: true });
  return withdrawal;
}

import type { DepositMethod, DepositRecord } from '../../adapters/deposit-store/index.js';
import { ProcessorRefused, ProcessorUnavailable } from '../../adapters/payment-processor/index.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { toMinor } from './deposit-amounts.js';
import { METHOD_RAILS, railFor, railUnavailable } from './deposit-rails.js';
import { settleFromProcessor } from './deposit-settlement.js';
import type { PaymentsContext } from './payments-context.js';

export interface DepositRequest {
  method: DepositMethod;
  amountUsd?: number | undefined;
  amountRub?: number | undefined;
}

/** The amount a method takes, in minor units, or 400 `invalid_deposit` (the contract bounds the numbers). */
function amountFor(request: DepositRequest): bigint | null {
  const { method, amountUsd, amountRub } = request;
  const given = method === 'card' ? amountUsd : method === 'sbp' ? amountRub : undefined;
  const other = method === 'card' ? amountRub : method === 'sbp' ? amountUsd : (amountUsd ?? amountRub);
  if (other !== undefined || (method !== 'usdt_trc20' && given === undefined)) throw new ApiError('invalid_deposit');
  return given === undefined ? null : toMinor(given);
}

/**
 * Starts a deposit (issue 27): a card or SBP deposit is a checkout on its processor's page, created with the deposit
 * id as the processor's idempotency key (a retry never makes two); a USDT deposit hands out the account's address.
 */
export async function startDeposit(ctx: PaymentsContext, accountId: string, request: DepositRequest) {
  const amountMinor = amountFor(request);
  const { method } = request;
  const nowMs = ctx.now();
  const { processor, currency } = METHOD_RAILS[method];
  const base = { id: newId('dep'), accountId, method, processor, processorRef: null, currency, createdAtMs: nowMs };
  if (method === 'usdt_trc20') {
    if (ctx.usdt === null) throw railUnavailable(method, 'this service has no settings for it');
    const { usdt } = ctx;
    const { address } = await ctx.deposits.addressFor(accountId, (index) => usdt.address(index));
    const awaiting = {
      ...base,
      status: 'awaiting_transfer' as const,
      amountMinor: null,
      checkoutUrl: null,
      txId: null,
    };
    return created(await ctx.deposits.create({ ...awaiting, address }));
  }
  const rail = railFor(ctx.rails, method);
  const pending = { ...base, status: 'pending' as const, amountMinor, checkoutUrl: null, address: null, txId: null };
  const deposit = created(await ctx.deposits.create(pending));
  try {
    const checkout = await rail.createCheckout({
      depositId: deposit.id,
      accountId,
      method,
      amountMinor: amountMinor!,
      currency: currency as 'usd' | 'rub',
      returnUrl: ctx.returnUrl,
    });
    await ctx.deposits.attachCheckout(deposit.id, checkout, ctx.now());
  } catch (err) {
    await ctx.deposits.markClosed(deposit.id, 'failed', ctx.now());
    if (err instanceof ProcessorUnavailable) throw railUnavailable(method, 'its processor is unreachable');
    // The processor refused our request or our key: nothing to retry, nothing charged.
    if (err instanceof ProcessorRefused)
      throw new ApiError('payment_processor_refused', `The payment processor refused: ${err.message}`);
    throw err;
  }
  return (await ctx.deposits.get(deposit.id))!;
}

function created(outcome: Awaited<ReturnType<PaymentsContext['deposits']['create']>>): DepositRecord {
  if (!outcome.ok) throw new Error('a new deposit id collided'); // ids are random: a bug
  return outcome.deposit;
}

/** One deposit of the account, a pending card or SBP one checked with its processor first; 404 otherwise. */
export async function getDeposit(ctx: PaymentsContext, accountId: string, depositId: string): Promise<DepositRecord> {
  const deposit = await ctx.deposits.get(depositId);
  if (deposit === null || deposit.accountId !== accountId) throw new ApiError('deposit_not_found');
  await checkWithProcessor(ctx, deposit);
  return (await ctx.deposits.get(depositId))!;
}

/** A pending card or SBP deposit settled by what its processor says now; an unreachable processor changes nothing. */
async function checkWithProcessor(ctx: PaymentsContext, deposit: DepositRecord): Promise<void> {
  if (deposit.status !== 'pending' || deposit.processorRef === null || deposit.processor === 'tron') return;
  const state = await ctx.rails[deposit.processor]?.retrieve(deposit.processorRef).catch(() => null);
  if (state) await settleFromProcessor(ctx, deposit.processor, state);
  await ctx.deposits.touch(deposit.id, ctx.now());
}

/** Pending deposits not looked at for this long are checked with their processor: a webhook may have been lost. */
export const PENDING_CHECK_AFTER_MS = 60_000;
const CHECKS_PER_ROUND = 50;

/** One round of checks (a background task): the payments whose webhook never came are credited all the same. */
export async function checkPendingDeposits(ctx: PaymentsContext): Promise<void> {
  const due = await ctx.deposits.pendingToCheck(ctx.now() - PENDING_CHECK_AFTER_MS, CHECKS_PER_ROUND);
  for (const deposit of due) await checkWithProcessor(ctx, deposit);
}

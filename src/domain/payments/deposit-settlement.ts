import type { DepositRecord, Processor } from '../../adapters/deposit-store/index.js';
import {
  type PaymentState,
  type ProcessorEvent,
  ProcessorUnavailable,
} from '../../adapters/payment-processor/index.js';
import { topUp } from '../billing/top-up.js';
import { repayDebt, reverseClawBack } from './debts.js';
import { creditedMicros, minorToMicro } from './deposit-amounts.js';
import type { PaymentsContext } from './payments-context.js';

/**
 * Applies what a processor's API says of a payment (never what a webhook or a request says): paid → the deposit is
 * credited by the amount the processor took, once (the ledger transfer `dep:<deposit id>` is idempotent, so a retry
 * after a crash between the credit and the record lands on the same transfer); failed or expired → closed. A
 * payment whose metadata names another account than the deposit's, or no deposit of ours, changes nothing.
 */
export async function settleFromProcessor(ctx: PaymentsContext, processor: Processor, state: PaymentState) {
  const deposit = await ctx.deposits.findByRef(processor, state.processorRef);
  if (deposit === null || (state.depositId !== null && state.depositId !== deposit.id)) return;
  if (state.accountId !== null && state.accountId !== deposit.accountId) return;
  if (state.status === 'failed' || state.status === 'expired')
    return void (await ctx.deposits.markClosed(deposit.id, state.status, ctx.now()));
  if (state.status !== 'paid' || deposit.status !== 'pending') return;
  await credit(ctx, deposit, state);
}

async function credit(ctx: PaymentsContext, deposit: DepositRecord, state: PaymentState): Promise<void> {
  const nowMs = ctx.now();
  const rub = state.currency === 'rub';
  const micros = creditedMicros(state.amountMinor, state.currency, ctx.rubRateMicro);
  const { lot } = await topUp(ctx.ledger, ctx.apiKeys, {
    id: `dep:${deposit.id}`,
    accountId: deposit.accountId,
    usdMicros: micros,
    ...(rub ? { rub: { rubMicro: minorToMicro(state.amountMinor), fxRateRubMicro: ctx.rubRateMicro } } : {}),
    marketRateMicro: ctx.rubRateMicro,
    nowMs,
  });
  // A replayed credit answers the lot of the first; the record is written once whichever call gets here.
  await ctx.deposits.markCredited(deposit.id, {
    creditedMicros: micros,
    amountMinor: state.amountMinor,
    fxRateRubMicro: rub ? lot.fxRateRubMicro : null,
    chargeRef: state.chargeRef,
    atMs: nowMs,
  });
  await repayDebt(ctx, deposit.accountId, deposit.id);
}

/**
 * What verified webhooks mean for the books (issue 27 item 1): a payment change is re-read from the processor and
 * settled; a refund or a lost dispute takes its amount back from the balance, once per refund or dispute (the
 * transfer id), as far as the balance goes (the rest is the platform's loss, DESIGN.md 11).
 */
export async function applyProcessorEvents(
  ctx: PaymentsContext,
  processor: 'stripe' | 'yookassa',
  events: readonly ProcessorEvent[],
): Promise<void> {
  const rail = ctx.rails[processor]!;
  for (const event of events) {
    if (event.kind === 'payment_changed') {
      const state = await rail.retrieve(event.processorRef);
      if (state !== null) await settleFromProcessor(ctx, processor, state);
      // A payment of ours the processor cannot show yet: refused for now, so its webhook comes again.
      else if ((await ctx.deposits.findByRef(processor, event.processorRef)) !== null)
        throw new ProcessorUnavailable(`${processor} does not show ${event.processorRef} yet`);
    } else if (event.kind === 'refunded') {
      await clawBack(ctx, processor, event.chargeRef, `refund:${processor}:${event.refundId}`, event.amountMinor);
    } else if (event.kind === 'dispute_funds_withdrawn') {
      await clawBack(ctx, processor, event.chargeRef, `dispute:${processor}:${event.disputeId}`, event.amountMinor);
    } else if (event.kind === 'dispute_funds_reinstated') {
      await reverseClawBack(ctx, `dispute:${processor}:${event.disputeId}`);
    }
  }
}

async function clawBack(
  ctx: PaymentsContext,
  processor: Processor,
  chargeRef: string,
  transferId: string,
  amountMinor: bigint,
): Promise<void> {
  const deposit = await ctx.deposits.findByChargeRef(processor, chargeRef);
  if (deposit === null || deposit.creditedMicros === null) return;
  const rate = deposit.fxRateRubMicro ?? ctx.rubRateMicro;
  const asked = creditedMicros(amountMinor, deposit.currency === 'rub' ? 'rub' : 'usd', rate);
  const micros = asked < deposit.creditedMicros ? asked : deposit.creditedMicros;
  const nowMs = ctx.now();
  const outcome = await ctx.ledger.debit({
    id: transferId,
    accountId: deposit.accountId,
    amountMicros: micros,
    nowMs,
    memo: `clawback of deposit ${deposit.id}`,
    allowShortfall: true,
  });
  if (!outcome.ok) return;
  // What the balance could not give is owed (debts.ts): an entry keyed by the clawback, so a replay adds nothing.
  if (outcome.lossMicros > 0n) await ctx.apiKeys.changeDebt(deposit.accountId, transferId, outcome.lossMicros, nowMs);
  if (!outcome.replayed) await ctx.deposits.addRefunded(deposit.id, micros, nowMs);
}

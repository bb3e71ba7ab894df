import type { PaymentsContext } from './payments-context.js';

/**
 * Debts (issue 27 item 1, DESIGN.md 11): a refund or a lost dispute takes back a deposit the account has already
 * spent. The balance never goes negative, so what it could not give (the clawback's loss) is recorded as owed; while
 * anything is owed the account makes no paid call (billing/debt-guard.ts), and every later deposit repays it first. A won
 * dispute reverses its clawback exactly: the money taken comes back and the debt it made is forgiven. Each step is
 * a ledger transfer and a debt entry with ids of their own, so none is applied twice.
 */

/** After a deposit was credited: what is owed is paid from it, as far as it goes. */
export async function repayDebt(ctx: PaymentsContext, accountId: string, sourceId: string): Promise<void> {
  const account = await ctx.apiKeys.getAccount(accountId);
  if (account === null || account.debtMicros === 0n) return;
  const balance = await ctx.ledger.getBalance(accountId);
  const amount = account.debtMicros < balance.availableMicros ? account.debtMicros : balance.availableMicros;
  if (amount <= 0n) return;
  const nowMs = ctx.now();
  const repayment = `repay:${sourceId}`;
  const debit = await ctx.ledger.debit({
    id: repayment,
    accountId,
    amountMicros: amount,
    nowMs,
    memo: 'debt repayment',
  });
  if (debit.ok) await ctx.apiKeys.changeDebt(accountId, repayment, -debit.transfer.postedMicros, nowMs);
}

/** A won dispute: the clawback `clawbackId` is undone, money and debt alike. */
export async function reverseClawBack(ctx: PaymentsContext, clawbackId: string): Promise<void> {
  const clawback = await ctx.ledger.getTransfer(clawbackId);
  if (clawback === null) return;
  const nowMs = ctx.now();
  const lost = clawback.amountMicros - clawback.postedMicros;
  if (clawback.postedMicros > 0n)
    await ctx.ledger.credit({
      id: `reinstate:${clawbackId}`,
      accountId: clawback.accountId,
      amountMicros: clawback.postedMicros,
      lot: { currency: 'USD', fxRateRubMicro: ctx.rubRateMicro },
      nowMs,
      memo: 'dispute won: clawback reversed',
    });
  if (lost > 0n) await ctx.apiKeys.changeDebt(clawback.accountId, `reinstate:${clawbackId}`, -lost, nowMs);
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileDeposits } from '../../src/domain/payments/reconcile.js';
import { newId } from '../../src/lib/ids.js';
import { type PaymentsHarness, startPaymentsHarness } from '../setup/payments.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(() => h.close());

const differencesOf = async (depositId: string) =>
  (await reconcileDeposits(h.deps.payments)).differences.filter((d) => d.deposit_id === depositId);

/** Issue 27 item 5: the ledger compared with each rail; differences printed for the operator. */
describe('payments reconcile', () => {
  it('finds nothing to say of a paid, credited deposit or of an unpaid pending one', async () => {
    const { apiKey } = await h.newAccount();
    const paid = await h.deposit(apiKey, { method: 'card', amount_usd: 10 });
    await h.stripe.pay(await h.refOf(paid.deposit_id));
    const open = await h.deposit(apiKey, { method: 'sbp', amount_rub: 200 });
    expect(await differencesOf(paid.deposit_id)).toEqual([]);
    expect(await differencesOf(open.deposit_id)).toEqual([]);
  });

  it('names a payment the processor took that the ledger never credited', async () => {
    const { apiKey } = await h.newAccount();
    const deposit = await h.deposit(apiKey, { method: 'sbp', amount_rub: 800 });
    h.yookassa.succeed(h.lastYooKassaPayment());
    h.yookassa.outbox.queued.splice(0); // the notification is lost
    expect(await differencesOf(deposit.deposit_id)).toMatchObject([{ problem: 'paid_not_credited', method: 'sbp' }]);
  });

  it('names a deposit recorded as credited whose ledger transfer is missing', async () => {
    const { accountId } = await h.newAccount();
    const made = await h.deps.payments.deposits.create({
      id: newId('dep'),
      accountId,
      method: 'usdt_trc20',
      processor: 'tron',
      processorRef: `${newId('tx')}:0`,
      status: 'awaiting_transfer',
      amountMinor: 5_000_000n,
      currency: 'usdt',
      checkoutUrl: null,
      address: null,
      txId: null,
      createdAtMs: Date.now(),
    });
    const id = made.ok ? made.deposit.id : '';
    const credited = { creditedMicros: 5_000_000n, amountMinor: 5_000_000n, fxRateRubMicro: null, chargeRef: null };
    await h.deps.payments.deposits.markCredited(id, { ...credited, atMs: Date.now() });
    expect(await differencesOf(id)).toMatchObject([{ problem: 'credit_missing' }]);
  });
});

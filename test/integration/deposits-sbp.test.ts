import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPendingDeposits, PENDING_CHECK_AFTER_MS } from '../../src/domain/payments/deposits.js';
import { FakeYooKassa } from '../fakes/yookassa.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { micros } from '../setup/money.js';

let h: Harness;
let yookassa: FakeYooKassa;
/** The service's clock runs ahead of the wall clock by this much (moved by tests). */
let aheadMs = 0;
beforeAll(async () => {
  yookassa = await FakeYooKassa.start();
  const env = {
    YOOKASSA_SHOP_ID: yookassa.shopId,
    YOOKASSA_SECRET_KEY: yookassa.secretKey,
    YOOKASSA_API_URL: yookassa.apiBase,
    MARKET_FX_RATE_RUB: '80',
  };
  h = await startHarness(env, { now: () => Date.now() + aheadMs });
  yookassa.outbox.webhookUrl = `${h.baseUrl}/v1/payments/webhooks/yookassa`;
});
afterAll(async () => {
  await h.close();
  await yookassa.close();
});

async function sbpDeposit(apiKey: string, amountRub: number) {
  const created = await call(h.baseUrl, 'POST', '/v1/payments/deposits', {
    key: apiKey,
    body: { method: 'sbp', amount_rub: amountRub },
  });
  const deposit = expectNativeOk(created, 201);
  const paymentId = [...yookassa.payments.keys()].at(-1)!;
  return { deposit, paymentId };
}

const balance = async (apiKey: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd as number;

/** Issue 27 item 2: SBP and Russian cards through YooKassa, credited only on what its API says, once. */
describe('SBP deposits through the acquirer', () => {
  it('pays, is notified twice and out of order, and is credited once at the day’s rate as a ruble lot', async () => {
    const { apiKey, accountId } = await h.newAccount();
    const { deposit, paymentId } = await sbpDeposit(apiKey, 800);
    expect(deposit).toMatchObject({ method: 'sbp', status: 'pending', amount_rub: 800, credited_usd: null });
    expect(deposit.checkout_url).toMatch(/^https?:\/\//);
    yookassa.authorize(paymentId);
    yookassa.succeed(paymentId);
    const answers = await yookassa.outbox.deliver({ times: 3, order: 'reversed' });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await balance(apiKey)).toBe(10); // 800 RUB at 80 RUB/USD
    const lots = await h.deps.ledger.listLots(accountId);
    expect(lots).toMatchObject([{ currency: 'RUB', fxRateRubMicro: micros(80) }]);
    const listed = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/payments/deposits', { key: apiKey })).deposits;
    expect(listed).toMatchObject([{ deposit_id: deposit.deposit_id, status: 'credited', credited_usd: 10 }]);
  });

  it('a forged success for a pending payment credits nothing; the real one later does', async () => {
    const { apiKey } = await h.newAccount();
    const { deposit, paymentId } = await sbpDeposit(apiKey, 400);
    yookassa.forge.succeeded(paymentId);
    await yookassa.outbox.deliver();
    expect(await balance(apiKey)).toBe(0);
    yookassa.succeed(paymentId);
    await yookassa.outbox.deliver();
    expect(await balance(apiKey)).toBe(5);
    const one = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/payments/deposits/${deposit.deposit_id}`, { key: apiKey }),
    );
    expect(one.status).toBe('credited');
  });

  it('a notification naming a payment YooKassa does not know: 400 webhook_rejected, nothing credited', async () => {
    yookassa.forge.unknownPayment();
    const [answer] = await yookassa.outbox.deliver();
    expect(answer!.status).toBe(400);
  });

  it('a cancelled payment closes the deposit; a refund takes its part back from the balance, once', async () => {
    const { apiKey } = await h.newAccount();
    const declined = await sbpDeposit(apiKey, 160);
    yookassa.cancel(declined.paymentId, 'card_expired');
    const { deposit, paymentId } = await sbpDeposit(apiKey, 1600);
    yookassa.succeed(paymentId);
    await yookassa.outbox.deliver();
    expect(await balance(apiKey)).toBe(20);
    yookassa.refund(paymentId, 40_000n); // 400 RUB
    await yookassa.outbox.deliver({ times: 2 });
    expect(await balance(apiKey)).toBe(15);
    const deposits = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/payments/deposits', { key: apiKey })).deposits;
    expect(deposits).toMatchObject([
      { deposit_id: deposit.deposit_id, status: 'partially_refunded', refunded_usd: 5 },
      { deposit_id: declined.deposit.deposit_id, status: 'failed' },
    ]);
  });

  it('a payment whose notification never came is credited by the background check a minute on', async () => {
    const { apiKey } = await h.newAccount();
    await sbpDeposit(apiKey, 240);
    yookassa.succeed([...yookassa.payments.keys()].at(-1)!);
    yookassa.outbox.queued.splice(0); // lost
    await checkPendingDeposits(h.deps.payments);
    expect(await balance(apiKey)).toBe(0); // not due yet: looked at less than a minute ago
    aheadMs += PENDING_CHECK_AFTER_MS + 1_000;
    await checkPendingDeposits(h.deps.payments);
    expect(await balance(apiKey)).toBe(3);
  });

  it('a refund of money already spent becomes a debt: paid calls wait (402 account_in_debt) until a deposit repays it', async () => {
    const { apiKey, accountId } = await h.newAccount();
    const { paymentId } = await sbpDeposit(apiKey, 1600);
    yookassa.succeed(paymentId);
    await yookassa.outbox.deliver();
    await h.spend(apiKey, 18);
    yookassa.refund(paymentId, 160_000n); // all 1600 RUB: $20 back, of which $2 is left to take
    await yookassa.outbox.deliver({ times: 2 });
    expect(await balance(apiKey)).toBe(0);
    expect((await h.deps.apiKeys.getAccount(accountId))?.debtMicros).toBe(micros(18));
    const chat = { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }] };
    const refused = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', { key: apiKey, body: chat });
    expect(refused.status, refused.text).toBe(402);
    expect(refused.body.error.code).toBe('account_in_debt');
    const second = await sbpDeposit(apiKey, 2400); // $30: $18 repays the debt
    yookassa.succeed(second.paymentId);
    await yookassa.outbox.deliver({ times: 2 });
    expect(await balance(apiKey)).toBe(12);
    expect((await h.deps.apiKeys.getAccount(accountId))?.debtMicros).toBe(0n);
    const served = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', { key: apiKey, body: chat });
    expect(served.status, served.text).toBe(200);
  });

  it('400 invalid_deposit: an SBP deposit in dollars; 404 deposit_not_found for another account’s', async () => {
    const { apiKey } = await h.newAccount();
    const wrong = await call(h.baseUrl, 'POST', '/v1/payments/deposits', {
      key: apiKey,
      body: { method: 'sbp', amount_usd: 10 },
    });
    expectNativeError(wrong, 400, 'invalid_deposit');
    const other = await h.newAccount();
    const { deposit } = await sbpDeposit(other.apiKey, 200);
    const path = `/v1/payments/deposits/${deposit.deposit_id}`;
    expectNativeError(await call(h.baseUrl, 'GET', path, { key: apiKey }), 404, 'deposit_not_found');
  });

  it('503 payment_rail_unavailable: card deposits with no Stripe settings', async () => {
    const { apiKey } = await h.newAccount();
    const card = await call(h.baseUrl, 'POST', '/v1/payments/deposits', {
      key: apiKey,
      body: { method: 'card', amount_usd: 10 },
    });
    expectNativeError(card, 503, 'payment_rail_unavailable');
    expect(card.body.data.meta.method).toBe('card');
  });
});

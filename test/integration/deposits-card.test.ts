import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { micros } from '../setup/money.js';
import { type PaymentsHarness, startPaymentsHarness } from '../setup/payments.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(() => h.close());

const balance = async (apiKey: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd as number;
const depositState = async (apiKey: string, id: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', `/v1/payments/deposits/${id}`, { key: apiKey }));

/** A paid card deposit of `usd`: the account, its key, the deposit and the PaymentIntent behind it. */
async function paidCardDeposit(usd: number) {
  const { apiKey, accountId } = await h.newAccount();
  const deposit = await h.deposit(apiKey, { method: 'card', amount_usd: usd });
  const sessionId = await h.refOf(deposit.deposit_id);
  await h.stripe.pay(sessionId);
  const intent = h.stripe.state.sessions.get(sessionId)!.session.payment_intent as string;
  return { apiKey, accountId, deposit, sessionId, intent };
}

/** Issue 27 item 1: cards through Stripe Checkout, credited once from the re-retrieved session. */
describe('card deposits through Stripe Checkout', () => {
  it('credits a paid session once, also when its events come five times and out of order', async () => {
    const { apiKey, deposit, sessionId } = await paidCardDeposit(25);
    expect(await balance(apiKey)).toBe(25);
    h.stripe.webhooks.hold();
    const completed = h.stripe.lastEvent('checkout.session.completed');
    for (let i = 0; i < 5; i++) await h.stripe.webhooks.redeliver(completed.id);
    await h.stripe.webhooks.release('reversed');
    expect(await balance(apiKey)).toBe(25);
    expect(await depositState(apiKey, deposit.deposit_id)).toMatchObject({ status: 'credited', credited_usd: 25 });
    expect(sessionId).toMatch(/^cs_/);
  });

  it('an event that comes before the session can be read is answered 503, and its redelivery credits', async () => {
    const { apiKey } = await h.newAccount();
    const deposit = await h.deposit(apiKey, { method: 'card', amount_usd: 10 });
    const sessionId = await h.refOf(deposit.deposit_id);
    h.stripe.hideFromReads(sessionId);
    await h.stripe.pay(sessionId);
    expect(h.stripe.webhooks.deliveries.at(-1)?.status).not.toBe(200);
    expect(await balance(apiKey)).toBe(0);
    h.stripe.revealToReads(sessionId);
    await h.stripe.webhooks.redeliver(h.stripe.lastEvent('checkout.session.completed').id);
    expect(await balance(apiKey)).toBe(10);
  });

  it('an asynchronous payment is credited when it succeeds, never when it fails', async () => {
    const { apiKey } = await h.newAccount();
    const good = await h.deposit(apiKey, { method: 'card', amount_usd: 10 });
    const bad = await h.deposit(apiKey, { method: 'card', amount_usd: 20 });
    await h.stripe.payAsync(await h.refOf(good.deposit_id));
    await h.stripe.payAsync(await h.refOf(bad.deposit_id));
    expect(await balance(apiKey)).toBe(0);
    await h.stripe.asyncSucceeds(await h.refOf(good.deposit_id));
    await h.stripe.asyncFails(await h.refOf(bad.deposit_id));
    expect(await balance(apiKey)).toBe(10);
    expect((await depositState(apiKey, bad.deposit_id)).status).toBe('failed');
  });

  it('a refund claws back once; a lost dispute past the balance is a debt, a won one reverses exactly', async () => {
    const { apiKey, accountId, intent } = await paidCardDeposit(50);
    await h.stripe.refund(intent, 1000); // $10
    await h.stripe.webhooks.redeliver(h.stripe.lastEvent('charge.refunded').id);
    expect(await balance(apiKey)).toBe(40);
    await h.spend(apiKey, 35);
    const disputeId = await h.stripe.openDispute(intent, 4000); // $40 withdrawn: $5 left to take, $35 owed
    expect(await balance(apiKey)).toBe(0);
    expect((await h.deps.apiKeys.getAccount(accountId))?.debtMicros).toBe(micros(35));
    await h.stripe.winDispute(disputeId);
    expect(await balance(apiKey)).toBe(5);
    expect((await h.deps.apiKeys.getAccount(accountId))?.debtMicros).toBe(0n);
  });

  it('a paid session whose metadata names another account than its deposit credits no one', async () => {
    const { apiKey } = await h.newAccount();
    const other = await h.newAccount();
    const deposit = await h.deposit(apiKey, { method: 'card', amount_usd: 10 });
    const sessionId = await h.refOf(deposit.deposit_id);
    const session = h.stripe.state.sessions.get(sessionId)!.session as unknown as { metadata: Record<string, string> };
    session.metadata.account_id = other.accountId;
    await h.stripe.pay(sessionId);
    expect(await balance(apiKey)).toBe(0);
    expect(await balance(other.apiKey)).toBe(0);
  });

  it('a tampered or replayed-with-another-secret webhook is refused 400 and credits nothing', async () => {
    const { apiKey } = await h.newAccount();
    const deposit = await h.deposit(apiKey, { method: 'card', amount_usd: 10 });
    const sessionId = await h.refOf(deposit.deposit_id);
    const rightSecret = h.stripe.webhooks.signingSecret;
    h.stripe.webhooks.signingSecret = 'whsec_not_the_endpoints_secret_at_all';
    await h.stripe.pay(sessionId);
    h.stripe.webhooks.signingSecret = rightSecret;
    expect(h.stripe.webhooks.deliveries.slice(-2).map((d) => d.status)).toEqual([400, 400]);
    const stale = Math.floor(Date.now() / 1000) - 3600;
    await h.stripe.webhooks.redeliver(h.stripe.lastEvent('checkout.session.completed').id, { timestampSec: stale });
    expect(h.stripe.webhooks.deliveries.at(-1)?.status).toBe(400);
    expect(await balance(apiKey)).toBe(0);
  });
});

import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { type PaymentsHarness, startPaymentsHarness } from '../setup/payments.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(() => h.close());

const PATH = '/v1/payments/webhooks/stripe';

/** An event as Stripe sends it: its JSON and a Stripe-Signature over exactly those bytes. */
function signed(event: unknown, secret = h.stripe.webhooks.signingSecret) {
  const payload = JSON.stringify(event);
  const signature = Stripe.webhooks.generateTestHeaderString({ payload, secret });
  return { rawBody: payload, headers: { 'content-type': 'application/json', 'stripe-signature': signature } };
}

describe('POST /v1/payments/webhooks/stripe', () => {
  it('200 received: a signed completion credits the paid session; a redelivery changes nothing', async () => {
    const { apiKey } = await h.newAccount();
    const deposit = await h.deposit(apiKey, { method: 'card', amount_usd: 12 });
    h.stripe.webhooks.hold();
    await h.stripe.pay(await h.refOf(deposit.deposit_id));
    const event = h.stripe.lastEvent('checkout.session.completed');
    for (let i = 0; i < 2; i++)
      expect(expectNativeOk(await call(h.baseUrl, 'POST', PATH, signed(event)))).toEqual({ received: true });
    const account = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey }));
    expect(account.balance_usd).toBe(12);
  });

  it('200 received: a verified event of a type not acted on', async () => {
    const event = { id: 'evt_ignored_1', object: 'event', type: 'customer.created', data: { object: { id: 'cus_1' } } };
    expectNativeOk(await call(h.baseUrl, 'POST', PATH, signed(event)));
  });

  it('400 webhook_rejected: no signature, another secret, a body changed after signing', async () => {
    const event = { id: 'evt_x', object: 'event', type: 'customer.created', data: { object: {} } };
    const unsigned = await call(h.baseUrl, 'POST', PATH, { body: event });
    expectNativeError(unsigned, 400, 'webhook_rejected');
    expectNativeError(await call(h.baseUrl, 'POST', PATH, signed(event, 'whsec_other')), 400, 'webhook_rejected');
    const good = signed(event);
    const changed = { ...good, rawBody: good.rawBody.replace('customer.created', 'customer.deleted') };
    expectNativeError(await call(h.baseUrl, 'POST', PATH, changed), 400, 'webhook_rejected');
  });

  it('503 payment_rail_unavailable while Stripe cannot be asked about the payment', async () => {
    const { apiKey } = await h.newAccount();
    const deposit = await h.deposit(apiKey, { method: 'card', amount_usd: 5 });
    h.stripe.webhooks.hold();
    await h.stripe.pay(await h.refOf(deposit.deposit_id));
    h.stripe.failRequests(500, 4);
    const response = await call(h.baseUrl, 'POST', PATH, signed(h.stripe.lastEvent('checkout.session.completed')));
    expectNativeError(response, 503, 'payment_rail_unavailable');
    h.stripe.failRequests(null);
  });

  it('413 request_too_large: a body past the cap', async () => {
    const response = await call(h.baseUrl, 'POST', PATH, { body: { padding: 'x'.repeat(300_000) } });
    expectNativeError(response, 413, 'request_too_large');
  });
});

/**
 * The Stripe adapter against the fake Stripe API (issue 27): what it sends to create a Checkout Session, how it
 * maps a session's state (sync, delayed, failed, expired; before the session is readable), and how failures of the
 * API reach the caller. Webhook mapping and signatures: stripe-webhooks.test.ts, stripe-signatures.test.ts.
 */
import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CheckoutRequest,
  ProcessorRefused,
  ProcessorUnavailable,
} from '../../src/adapters/payment-processor/index.js';
import { type StripeRig, startStripeRig } from '../fakes/stripe-rig.js';

const request = (overrides: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
  depositId: `dep_${Math.random().toString(36).slice(2)}`,
  accountId: 'acc_owner',
  method: 'card',
  amountMinor: 2_500n,
  currency: 'usd',
  returnUrl: 'https://gateway.example.com/dashboard/deposits?from=checkout',
  ...overrides,
});

const failureOf = (work: Promise<unknown>) =>
  work.then(
    () => null,
    (error: unknown) => error,
  );

describe('StripePaymentProcessor: creating a Checkout Session', () => {
  let rig: StripeRig;
  beforeEach(async () => {
    rig = await startStripeRig();
  });
  afterEach(() => rig.close());

  it('one card line item for the amount, our ids in metadata (session and PaymentIntent), the deposit as the key', async () => {
    const req = request();
    const checkout = await rig.processor.createCheckout(req);
    const [sent] = rig.fake.requests.filter((r) => r.method === 'POST' && r.path === '/v1/checkout/sessions');
    expect(sent!.headers['idempotency-key']).toBe(req.depositId);
    expect(sent!.headers['stripe-version']).toBe(Stripe.API_VERSION);
    expect(sent!.params).toEqual({
      mode: 'payment',
      allowed_payment_method_types: ['card'],
      line_items: [
        {
          quantity: '1',
          price_data: { currency: 'usd', unit_amount: '2500', product_data: { name: expect.any(String) } },
        },
      ],
      client_reference_id: req.depositId,
      metadata: { deposit_id: req.depositId, account_id: req.accountId },
      payment_intent_data: { metadata: { deposit_id: req.depositId, account_id: req.accountId } },
      success_url: req.returnUrl,
      cancel_url: req.returnUrl,
    });
    const session = rig.fake.state.sessions.get(checkout.processorRef)!.session;
    expect(checkout).toEqual({
      processorRef: session.id,
      checkoutUrl: session.url,
      expiresAtMs: session.expires_at * 1000,
    });
  });

  it('a 500 once is retried by the client with the same key: one session, not two', async () => {
    rig.fake.failRequests(500, 1);
    const checkout = await rig.processor.createCheckout(request());
    const posts = rig.fake.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(2);
    expect(posts[1]!.headers['idempotency-key']).toBe(posts[0]!.headers['idempotency-key']);
    expect([...rig.fake.state.sessions.keys()]).toEqual([checkout.processorRef]);
  });

  it('500s that persist, and a closed port, are ProcessorUnavailable', async () => {
    rig.fake.failRequests(500);
    expect(await failureOf(rig.processor.createCheckout(request()))).toBeInstanceOf(ProcessorUnavailable);
    expect(await failureOf(rig.processor.retrieve('cs_test_any'))).toBeInstanceOf(ProcessorUnavailable);
    await rig.fake.close();
    expect(await failureOf(rig.processor.createCheckout(request()))).toBeInstanceOf(ProcessorUnavailable);
  });

  it('an amount under Stripe’s minimum is ProcessorRefused(request) with Stripe’s code', async () => {
    const error = await failureOf(rig.processor.createCheckout(request({ amountMinor: 49n })));
    expect(error).toBeInstanceOf(ProcessorRefused);
    expect(error).toMatchObject({ kind: 'request', processorCode: 'amount_too_small' });
  });

  it('the same deposit id with another amount is refused, not a second session', async () => {
    const req = request();
    await rig.processor.createCheckout(req);
    const error = await failureOf(rig.processor.createCheckout({ ...req, amountMinor: 9_900n }));
    expect(error).toBeInstanceOf(ProcessorRefused);
    expect(error).toMatchObject({ kind: 'request' });
    expect(rig.fake.state.sessions.size).toBe(1);
  });

  it('a key Stripe refuses is ProcessorRefused(credentials), for create and retrieve', async () => {
    const wrongKey = rig.processorWith({ secretKey: 'sk_test_not_this_one' });
    expect(await failureOf(wrongKey.createCheckout(request()))).toMatchObject({ kind: 'credentials' });
    expect(await failureOf(wrongKey.retrieve('cs_test_any'))).toBeInstanceOf(ProcessorRefused);
  });
});

describe('StripePaymentProcessor: the state of a session', () => {
  let rig: StripeRig;
  let ref: string;
  beforeEach(async () => {
    rig = await startStripeRig();
    ref = (await rig.processor.createCheckout(request())).processorRef;
  });
  afterEach(() => rig.close());

  const status = async () => (await rig.processor.retrieve(ref))?.status;
  const intentOf = () => rig.fake.state.sessions.get(ref)!.session.payment_intent;

  it('open is pending; paid by card is paid, with the PaymentIntent as the charge ref', async () => {
    expect(await status()).toBe('pending');
    await rig.fake.pay(ref);
    expect(await rig.processor.retrieve(ref)).toMatchObject({
      status: 'paid',
      amountMinor: 2_500n,
      chargeRef: intentOf(),
    });
    expect(intentOf()).toMatch(/^pi_/);
  });

  it('a delayed method: complete but unpaid is pending; then paid when it succeeds', async () => {
    await rig.fake.payAsync(ref);
    expect(rig.fake.state.sessions.get(ref)!.session).toMatchObject({ status: 'complete', payment_status: 'unpaid' });
    expect(await status()).toBe('pending');
    await rig.fake.asyncSucceeds(ref);
    expect(await status()).toBe('paid');
  });

  it('a delayed method that fails is failed (the session cannot be paid again)', async () => {
    await rig.fake.payAsync(ref);
    await rig.fake.asyncFails(ref);
    expect(await rig.processor.retrieve(ref)).toMatchObject({ status: 'failed', chargeRef: intentOf() });
  });

  it('an expired session is expired', async () => {
    await rig.fake.expire(ref);
    expect(await status()).toBe('expired');
  });

  it('an event that arrives before the session is readable: a trigger now, null on read, paid once readable', async () => {
    rig.fake.hideFromReads(ref);
    await rig.fake.pay(ref);
    expect((await rig.takeEvents()).filter((event) => event.kind !== 'ignored')).toEqual([
      { kind: 'payment_changed', eventId: rig.fake.lastEvent('checkout.session.completed').id, processorRef: ref },
    ]);
    expect(await rig.processor.retrieve(ref)).toBeNull();
    rig.fake.revealToReads(ref);
    expect(await status()).toBe('paid');
  });
});

/**
 * The payment-processor conformance suite (payment-processor.conformance.ts) against the memory twin, the Stripe
 * adapter driven through the official client at the loopback fake Stripe API (test/fakes/stripe.ts), and the
 * YooKassa adapter at the fake acquirer (test/fakes/yookassa.ts, through yookassa-driver.ts); each rail's webhooks
 * are caught by a loopback endpoint. Rail-only behaviour is in stripe-processor.test.ts, stripe-webhooks.test.ts
 * and the yookassa*.test.ts files.
 */
import { MemoryPaymentProcessor } from '../../src/adapters/payment-processor/memory.js';
import { eventIdOf, startStripeRig } from '../fakes/stripe-rig.js';
import { startYooKassaDriver } from '../fakes/yookassa-driver.js';
import { paymentProcessorConformance } from './payment-processor.conformance.js';

paymentProcessorConformance('memory', async () => {
  const processor = new MemoryPaymentProcessor();
  let taken = 0;
  const take = () => processor.webhooks.slice(taken, (taken = processor.webhooks.length));
  return {
    processor,
    method: 'card',
    currency: 'usd',
    unknownRef: 'mpay_neverIssuedByThisOne0',
    signsBytes: true,
    chargeIsThePayment: false,
    pay: async (ref) => processor.pay(ref),
    abandon: async (ref) => {
      processor.expire(ref);
      return 'expired';
    },
    refund: async (chargeRef, amountMinor) => void processor.refund(chargeRef, amountMinor),
    takeWebhooks: async () => take(),
    redeliver: async (webhook) => {
      processor.redeliver(webhook);
      return take().at(-1)!;
    },
    outage: async () => processor.setUnavailable(true),
    restore: async () => processor.setUnavailable(false),
    cleanup: async () => {},
  };
});

paymentProcessorConformance('Stripe, against the fake Stripe API', async () => {
  const { fake, sink, processor, close } = await startStripeRig();
  return {
    processor,
    method: 'card',
    currency: 'usd',
    unknownRef: 'cs_test_a1NeverIssuedByThisFake0000000000000000',
    signsBytes: true,
    chargeIsThePayment: false,
    pay: (ref) => fake.pay(ref),
    abandon: async (ref) => {
      await fake.expire(ref);
      return 'expired';
    },
    refund: async (chargeRef, amountMinor) => void (await fake.refund(chargeRef, Number(amountMinor))),
    takeWebhooks: async () => sink.take(),
    redeliver: async (webhook) => {
      await fake.webhooks.redeliver(eventIdOf(webhook));
      return sink.take().at(-1)!;
    },
    outage: async () => fake.failRequests(503),
    restore: async () => fake.failRequests(null),
    cleanup: close,
  };
});

paymentProcessorConformance('YooKassa, against the fake acquirer', async () => {
  const driver = await startYooKassaDriver();
  const { fake, receiver } = driver;
  let taken = 0;
  const take = () => receiver.webhooks.slice(taken, (taken = receiver.webhooks.length));
  return {
    processor: driver.processor,
    method: 'sbp',
    currency: 'rub',
    unknownRef: '2f9b1c7e-000f-5000-8000-0a1b2c3d4e5f',
    // Notifications are unsigned: each is proven by fetching the object it names (yookassa.ts), so there are no
    // signed bytes to alter; the suite's forged-payment and not-JSON steps still hold it.
    signsBytes: false,
    // A refund names the payment itself (`refund.payment_id`).
    chargeIsThePayment: true,
    pay: driver.pay,
    abandon: async (ref) => {
      await driver.expire(ref);
      return 'expired';
    },
    refund: async (chargeRef, amountMinor) => void (await driver.refund(chargeRef, amountMinor)),
    takeWebhooks: async () => {
      await fake.outbox.deliver();
      return take();
    },
    // YooKassa posts a notification again until it is answered 200: the same notification, once more.
    redeliver: async (webhook) => {
      const { event, object } = JSON.parse(webhook.rawBody.toString('utf8'));
      fake.outbox.queue(event, object);
      await fake.outbox.deliver();
      return take().at(-1)!;
    },
    outage: async () => fake.failRequests(502),
    restore: async () => fake.failRequests(null),
    cleanup: driver.close,
  };
});

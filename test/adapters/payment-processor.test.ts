/**
 * The payment-processor conformance suite (payment-processor.conformance.ts) against the memory twin and the
 * Stripe adapter driven through the official client at the loopback fake Stripe API (test/fakes/stripe.ts), its
 * webhooks caught by a loopback endpoint. Stripe-only behaviour is in stripe-processor.test.ts and
 * stripe-webhooks.test.ts.
 */
import { MemoryPaymentProcessor } from '../../src/adapters/payment-processor/memory.js';
import { eventIdOf, startStripeRig } from '../fakes/stripe-rig.js';
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

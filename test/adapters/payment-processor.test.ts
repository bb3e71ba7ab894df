/** The payment-processor conformance suite (payment-processor.conformance.ts) against the memory twin. */
import { MemoryPaymentProcessor } from '../../src/adapters/payment-processor/memory.js';
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

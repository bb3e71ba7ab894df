/**
 * The YooKassa rail as a payment-processor conformance suite drives one: the real adapter against the fake acquirer,
 * with a webhook endpoint in between, behind create / pay / fail / expire / refund / notify. A suite written
 * against ProcessorDriver runs the same steps on every rail; this is YooKassa's.
 */
import type {
  Checkout,
  CheckoutRequest,
  PaymentProcessor,
  ProcessorEvent,
} from '../../src/adapters/payment-processor/index.js';
import { type YooKassaOptions, YooKassaProcessor } from '../../src/adapters/payment-processor/yookassa.js';
import { FakeYooKassa } from './yookassa.js';
import type { DeliveryOptions } from './yookassa-notifications.js';
import { startWebhookReceiver, type WebhookReceiver } from './yookassa-receiver.js';

export interface ProcessorDriver {
  processor: PaymentProcessor;
  /** A checkout as the deposit flow asks for one; the defaults are a ruble card deposit. */
  create(overrides?: Partial<CheckoutRequest>): Promise<Checkout>;
  /** The person pays the checkout in full. */
  pay(processorRef: string): Promise<void>;
  /** The payment is declined. */
  fail(processorRef: string): Promise<void>;
  /** The person never confirms it, and the processor gives up. */
  expire(processorRef: string): Promise<void>;
  /** Part (or all) of a paid payment goes back; the refund's id. */
  refund(processorRef: string, amountMinor: bigint): Promise<string>;
  /** Delivers the webhooks sent since the last call and returns the events the processor parsed from them. */
  notify(options?: DeliveryOptions): Promise<ProcessorEvent[]>;
  close(): Promise<void>;
}

export interface YooKassaDriver extends ProcessorDriver {
  fake: FakeYooKassa;
  receiver: WebhookReceiver;
}

let deposits = 0;

export async function startYooKassaDriver(options: Partial<YooKassaOptions> = {}): Promise<YooKassaDriver> {
  const fake = await FakeYooKassa.start();
  const processor = new YooKassaProcessor({
    shopId: fake.shopId,
    secretKey: fake.secretKey,
    apiBase: fake.apiBase,
    budgetMs: 5_000,
    ...options,
  });
  const receiver = await startWebhookReceiver(processor);
  fake.outbox.webhookUrl = receiver.url;
  return {
    processor,
    fake,
    receiver,
    create: (overrides = {}) =>
      processor.createCheckout({
        depositId: `dep_test${++deposits}`,
        accountId: 'acc_test1',
        method: 'card',
        amountMinor: 150_000n,
        currency: 'rub',
        returnUrl: 'https://gateway.example.com/dashboard/billing?deposit=done',
        ...overrides,
      }),
    pay: async (ref) => fake.succeed(ref),
    fail: async (ref) => fake.cancel(ref, 'insufficient_funds'),
    expire: async (ref) => fake.cancel(ref, 'expired_on_confirmation'),
    refund: async (ref, amountMinor) => fake.refund(ref, amountMinor),
    async notify(delivery) {
      const before = receiver.received.length;
      await fake.outbox.deliver(delivery);
      return receiver.received.slice(before).flatMap((outcome) => (outcome.status === 200 ? outcome.events : []));
    },
    async close() {
      await receiver.close();
      await fake.close();
    },
  };
}

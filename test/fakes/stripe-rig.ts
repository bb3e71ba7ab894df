/**
 * The Stripe adapter wired to the fake Stripe API and a loopback webhook endpoint, for the Stripe tests: what a
 * deposit flow would see, without the app.
 */
import type { ProcessorEvent } from '../../src/adapters/payment-processor/index.js';
import { StripePaymentProcessor, type StripeProcessorOptions } from '../../src/adapters/payment-processor/stripe.js';
import { FakeStripe } from './stripe.js';
import { type ReceivedWebhook, startWebhookSink, type WebhookSink } from './stripe-webhook-sink.js';

export interface StripeRig {
  fake: FakeStripe;
  sink: WebhookSink;
  /** The adapter at the fake, verifying with the fake's signing secret. */
  processor: StripePaymentProcessor;
  /** Another adapter at the fake, with other options (secrets, key). */
  processorWith(options: Partial<StripeProcessorOptions>): StripePaymentProcessor;
  /** Every event the webhooks received since the last call parse to, in arrival order. */
  takeEvents(): Promise<ProcessorEvent[]>;
  close(): Promise<void>;
}

export async function startStripeRig(): Promise<StripeRig> {
  const fake = await FakeStripe.start();
  const sink = await startWebhookSink();
  fake.webhooks.url = sink.url;
  const processorWith = (options: Partial<StripeProcessorOptions>) =>
    new StripePaymentProcessor({
      secretKey: fake.secretKey,
      webhookSecrets: [fake.webhooks.signingSecret],
      apiBaseUrl: fake.apiBaseUrl,
      timeoutMs: 5_000,
      ...options,
    });
  const processor = processorWith({});
  return {
    fake,
    sink,
    processor,
    processorWith,
    takeEvents: async () => (await Promise.all(sink.take().map((w) => parse(processor, w)))).flat(),
    close: async () => {
      await sink.close();
      await fake.close();
    },
  };
}

export function parse(processor: StripePaymentProcessor, webhook: ReceivedWebhook): Promise<ProcessorEvent[]> {
  return processor.parseWebhook(webhook.rawBody, webhook.headers);
}

/** The event id a webhook body carries. */
export function eventIdOf(webhook: ReceivedWebhook): string {
  return (JSON.parse(webhook.rawBody.toString('utf8')) as { id: string }).id;
}

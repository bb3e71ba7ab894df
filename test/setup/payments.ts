/**
 * A gateway with its payment rails pointed at loopback fakes that speak each processor's wire format
 * (test/fakes/): the harness, plus the fakes and a way to start a deposit as a client does.
 */
import { FakeStripe } from '../fakes/stripe.js';
import { FakeYooKassa } from '../fakes/yookassa.js';
import { expectNativeOk } from './envelopes.js';
import { call, type Harness, startHarness } from './harness.js';

export interface PaymentsHarness extends Harness {
  yookassa: FakeYooKassa;
  stripe: FakeStripe;
  /** The processor's id of a deposit (a Checkout Session, a YooKassa payment). */
  refOf(depositId: string): Promise<string>;
  /** Starts a deposit as `apiKey`'s account; the deposit as answered (201). */
  deposit(apiKey: string, body: Record<string, unknown>): Promise<Record<string, any>>;
  /** The YooKassa payment behind the newest SBP deposit. */
  lastYooKassaPayment(): string;
}

/** Rubles at 80 per dollar, so 80 RUB credit exactly $1. */
export async function startPaymentsHarness(env: Record<string, string> = {}): Promise<PaymentsHarness> {
  const yookassa = await FakeYooKassa.start();
  const stripe = await FakeStripe.start();
  const harness = await startHarness({
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_WEBHOOK_SECRET: stripe.webhooks.signingSecret,
    STRIPE_API_URL: stripe.apiBaseUrl,
    YOOKASSA_SHOP_ID: yookassa.shopId,
    YOOKASSA_SECRET_KEY: yookassa.secretKey,
    YOOKASSA_API_URL: yookassa.apiBase,
    MARKET_FX_RATE_RUB: '80',
    ...env,
  });
  yookassa.outbox.webhookUrl = `${harness.baseUrl}/v1/payments/webhooks/yookassa`;
  stripe.webhooks.url = `${harness.baseUrl}/v1/payments/webhooks/stripe`;
  const closeHarness = harness.close.bind(harness);
  return Object.assign(harness, {
    yookassa,
    stripe,
    refOf: async (depositId: string) => (await harness.deps.payments.deposits.get(depositId))!.processorRef!,
    async deposit(apiKey: string, body: Record<string, unknown>) {
      const created = await call(harness.baseUrl, 'POST', '/v1/payments/deposits', { key: apiKey, body });
      return expectNativeOk(created, 201);
    },
    lastYooKassaPayment: () => [...yookassa.payments.keys()].at(-1)!,
    async close() {
      await closeHarness();
      await yookassa.close();
      await stripe.close();
    },
  });
}

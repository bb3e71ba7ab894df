/**
 * The card rail over Stripe Checkout (issue 27, DESIGN.md 11, research/payments.md 2), through the official client
 * (`stripe`, pinned): a deposit is a Checkout Session in payment mode; its state is re-read from the API; webhooks
 * are verified on their raw bytes against each configured signing secret and only name what changed.
 *
 * Failures: unreachable, timed out, 5xx, 409 or 429 → ProcessorUnavailable (retry later); any other 4xx on
 * create (or on a read that is not a plain 404) → ProcessorRefused, `request` or `credentials` (see the port).
 */
import Stripe from 'stripe';
import {
  type Checkout,
  type CheckoutRequest,
  type PaymentProcessor,
  type PaymentState,
  type ProcessorEvent,
  ProcessorRefused,
  ProcessorUnavailable,
  WebhookRejected,
} from './index.js';
import { eventsOf, type StripeReads, sessionState } from './stripe-mapping.js';

export interface StripeProcessorOptions {
  /** `sk_…` (or a restricted `rk_…` with Checkout Sessions write, Refunds and Disputes read). */
  secretKey: string;
  /**
   * The webhook endpoint's signing secrets (`whsec_…`). More than one while a secret is rolled: an event signed
   * with any of them is Stripe's, so the old one keeps working until Stripe stops using it.
   */
  webhookSecrets: readonly string[];
  /** Where the API is; tests aim it at a loopback fake. Default https://api.stripe.com. */
  apiBaseUrl?: string;
  /** Per request; the client retries once (same idempotency key) on a connection error or 5xx. Default 20 s. */
  timeoutMs?: number;
}

const DEFAULT_API_BASE_URL = 'https://api.stripe.com';
const DEFAULT_TIMEOUT_MS = 20_000;

/** Shown on Stripe's payment page as what is bought. */
const PRODUCT_NAME = 'Balance top-up';

export class StripePaymentProcessor implements PaymentProcessor {
  readonly name = 'stripe' as const;
  readonly methods = ['card'] as const;
  readonly #stripe: Stripe;
  readonly #webhookSecrets: readonly string[];
  readonly #reads: StripeReads;

  constructor(options: StripeProcessorOptions) {
    if (options.webhookSecrets.length === 0) throw new RangeError('Stripe needs at least one webhook signing secret');
    const base = new URL(options.apiBaseUrl ?? DEFAULT_API_BASE_URL);
    const protocol = base.protocol === 'http:' ? 'http' : 'https';
    this.#stripe = new Stripe(options.secretKey, {
      host: base.hostname,
      port: base.port === '' ? (protocol === 'http' ? 80 : 443) : Number(base.port),
      protocol,
      timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxNetworkRetries: 1,
      telemetry: false,
    });
    this.#webhookSecrets = [...options.webhookSecrets];
    this.#reads = {
      refundsOfCharge: (chargeId) =>
        this.#read(() =>
          this.#stripe.refunds.list({ charge: chargeId, limit: 100 }).autoPagingToArray({ limit: 10_000 }),
        ),
      dispute: (disputeId) => this.#read(() => this.#stripe.disputes.retrieve(disputeId)),
    };
  }

  async createCheckout(request: CheckoutRequest): Promise<Checkout> {
    if (request.method !== 'card') throw new RangeError(`Stripe takes cards only, not ${request.method}`);
    const ids = { deposit_id: request.depositId, account_id: request.accountId };
    const session = await this.#call(() =>
      this.#stripe.checkout.sessions.create(
        {
          mode: 'payment',
          // API 2026-10-28: a filter over what Stripe finds eligible (payment_method_types is gone)
          allowed_payment_method_types: ['card'],
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: request.currency,
                unit_amount: minorUnits(request.amountMinor),
                product_data: { name: PRODUCT_NAME },
              },
            },
          ],
          // The deposit is what this session stands for; the account rides in the metadata beside it.
          client_reference_id: request.depositId,
          metadata: ids,
          // Refunds and disputes name the PaymentIntent, not the session (research/payments.md 2.3).
          payment_intent_data: { metadata: ids },
          // One page for both outcomes: it shows the deposit as the API has it, whatever the person did.
          success_url: request.returnUrl,
          cancel_url: request.returnUrl,
        },
        { idempotencyKey: request.depositId },
      ),
    );
    if (session.url === null) throw new Error(`Stripe answered Checkout Session ${session.id} without a payment page`);
    return { processorRef: session.id, checkoutUrl: session.url, expiresAtMs: session.expires_at * 1000 };
  }

  async retrieve(processorRef: string): Promise<PaymentState | null> {
    try {
      const session = await this.#stripe.checkout.sessions.retrieve(processorRef, { expand: ['payment_intent'] });
      return sessionState(session);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw portError(error);
    }
  }

  async parseWebhook(
    rawBody: Buffer,
    headers: Readonly<Record<string, string | undefined>>,
  ): Promise<ProcessorEvent[]> {
    return eventsOf(this.#verified(rawBody, headers['stripe-signature']), this.#reads);
  }

  /** The event, if any of the secrets signed these exact bytes within Stripe's tolerance (300 s). */
  #verified(rawBody: Buffer, signature: string | undefined): Stripe.Event {
    if (signature === undefined || signature === '') throw new WebhookRejected('no Stripe-Signature header');
    let reason = '';
    for (const secret of this.#webhookSecrets) {
      try {
        return this.#stripe.webhooks.constructEvent(rawBody, signature, secret);
      } catch (error) {
        reason = error instanceof Error ? error.message : String(error);
      }
    }
    throw new WebhookRejected(`not a Stripe event for this endpoint: ${reason}`);
  }

  /**
   * A read a verified event needs. An object the event names but the API does not serve yet (Stripe's reads can
   * lag its events) is ProcessorUnavailable: the webhook is answered as a failure and Stripe delivers it again.
   */
  async #read<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      if (isNotFound(error))
        throw new ProcessorUnavailable(`Stripe does not serve it yet: ${(error as Error).message}`);
      throw portError(error);
    }
  }

  async #call<T>(request: () => Promise<T>): Promise<T> {
    try {
      return await request();
    } catch (error) {
      throw portError(error);
    }
  }
}

/** Stripe takes amounts as JSON numbers; beyond 2^53 one would be silently rounded. */
function minorUnits(amountMinor: bigint): number {
  if (amountMinor <= 0n || amountMinor > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new RangeError(`checkout amount out of range: ${amountMinor}`);
  }
  return Number(amountMinor);
}

function isNotFound(error: unknown): boolean {
  return error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404;
}

function portError(error: unknown): Error {
  const { errors } = Stripe;
  if (
    error instanceof errors.StripeConnectionError ||
    error instanceof errors.StripeAPIError ||
    error instanceof errors.StripeRateLimitError
  ) {
    return new ProcessorUnavailable(`Stripe unavailable: ${error.message}`);
  }
  if (error instanceof errors.StripeAuthenticationError || error instanceof errors.StripePermissionError) {
    return new ProcessorRefused(`Stripe refused our key: ${error.message}`, 'credentials', error.code ?? null);
  }
  if (error instanceof errors.StripeError) {
    return new ProcessorRefused(`Stripe refused the request: ${error.message}`, 'request', error.code ?? null);
  }
  return error instanceof Error ? error : new Error(String(error));
}

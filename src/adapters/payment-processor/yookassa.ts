import { AddressRanges } from '../../lib/address-ranges.js';
/**
 * The Russian acquirer rail (issue 27, DESIGN.md 11): cards and SBP through YooKassa's API v3, over fetch with no
 * SDK (research/payments.md 3, 9). A deposit is a payment with automatic capture (`capture: true`, so it completes
 * without a second call), the deposit id as its `Idempotence-Key` and in its metadata; the person pays on
 * YooKassa's page (`confirmation.type: redirect`) and comes back to `returnUrl`.
 *
 * YooKassa's notifications are unsigned, so a notification is only a hint: parseWebhook GETs the payment or refund
 * it names with the shop's own credentials and derives the event from that answer alone. A notification naming
 * an object the API does not know is rejected; one claiming a state the API does not show yields the event of
 * the state the API does show, which credits nothing until the API says `succeeded` (SPEC 4.3: the ruble amount
 * credited, and the RUB lot it makes, come from `retrieve`).
 *
 * A notification carries no id of its own, so an event's id is derived from what the API showed: `payment.<status>:
 * <payment id>` or `refund.<status>:<refund id>`. A redelivery, or a late copy of an earlier notification, maps to
 * the same id as long as the object has not moved on, and the inbox keeps one of them.
 */
import {
  type Checkout,
  type CheckoutMethod,
  type CheckoutRequest,
  type PaymentProcessor,
  type PaymentState,
  type ProcessorEvent,
  ProcessorUnavailable,
  WebhookRejected,
} from './index.js';
import { kopecksToDecimal } from './yookassa-amounts.js';
import { YooKassaClient } from './yookassa-client.js';
import { readNotification } from './yookassa-notifications.js';
import { readPayment, readRefund } from './yookassa-objects.js';

export interface YooKassaOptions {
  shopId: string;
  secretKey: string;
  /** Default `https://api.yookassa.ru/v3`; tests point it at a loopback fake. */
  apiBase?: string;
  /** One API call's time budget; default 15 s. */
  budgetMs?: number;
  /**
   * When given, a notification must come from one of these ranges (YOOKASSA_SENDER_RANGES) before anything is
   * fetched for it; when not, the re-fetch alone is the proof.
   */
  senderRanges?: readonly string[];
}

const API_BASE = 'https://api.yookassa.ru/v3';
const BUDGET_MS = 15_000;

/** The port's methods as YooKassa's `payment_method_data.type`. */
const METHOD_TYPES: Readonly<Record<CheckoutMethod, string>> = { card: 'bank_card', sbp: 'sbp' };

export class YooKassaProcessor implements PaymentProcessor {
  readonly name = 'yookassa';
  readonly methods: readonly CheckoutMethod[] = ['card', 'sbp'];
  private readonly client: YooKassaClient;
  private readonly senders: AddressRanges | null;

  constructor(options: YooKassaOptions) {
    this.client = new YooKassaClient({
      shopId: options.shopId,
      secretKey: options.secretKey,
      apiBase: options.apiBase ?? API_BASE,
      budgetMs: options.budgetMs ?? BUDGET_MS,
    });
    this.senders = options.senderRanges === undefined ? null : AddressRanges.parse(options.senderRanges);
  }

  async createCheckout(request: CheckoutRequest): Promise<Checkout> {
    if (request.currency !== 'rub') throw new RangeError(`yookassa takes rubles only (asked for ${request.currency})`);
    const payment = await this.client.post('/payments', paymentBody(request), request.depositId);
    const confirmation = payment.confirmation as { confirmation_url?: unknown } | undefined;
    if (typeof payment.id !== 'string' || typeof confirmation?.confirmation_url !== 'string')
      throw new ProcessorUnavailable(`yookassa created payment ${String(payment.id)} without a confirmation URL`);
    const expiresAtMs = typeof payment.expires_at === 'string' ? Date.parse(payment.expires_at) : Number.NaN;
    return {
      processorRef: payment.id,
      checkoutUrl: confirmation.confirmation_url,
      expiresAtMs: Number.isNaN(expiresAtMs) ? null : expiresAtMs,
    };
  }

  async retrieve(processorRef: string): Promise<PaymentState | null> {
    const payment = await this.client.get(`/payments/${encodeURIComponent(processorRef)}`);
    return payment === null ? null : readPayment(payment);
  }

  async parseWebhook(
    rawBody: Buffer,
    _headers: Readonly<Record<string, string | undefined>>,
    remoteAddress?: string,
  ): Promise<ProcessorEvent[]> {
    if (this.senders !== null && (remoteAddress === undefined || !this.senders.includes(remoteAddress)))
      throw new WebhookRejected(`a notification from ${remoteAddress ?? 'an unknown address'}, not YooKassa's`);
    const hint = readNotification(rawBody);
    return hint.object === 'payment' ? this.paymentEvent(hint.id) : this.refundEvent(hint.id);
  }

  private async paymentEvent(id: string): Promise<ProcessorEvent[]> {
    const payment = await this.client.get(`/payments/${encodeURIComponent(id)}`);
    if (payment === null) throw new WebhookRejected(`the notification names payment ${id}, unknown to the API`);
    const { processorRef } = readPayment(payment);
    return [{ kind: 'payment_changed', eventId: `payment.${String(payment.status)}:${processorRef}`, processorRef }];
  }

  private async refundEvent(id: string): Promise<ProcessorEvent[]> {
    const found = await this.client.get(`/refunds/${encodeURIComponent(id)}`);
    if (found === null) throw new WebhookRejected(`the notification names refund ${id}, unknown to the API`);
    const refund = readRefund(found);
    const eventId = `refund.${refund.status}:${refund.id}`;
    // A refund not (yet) succeeded has moved no money; if it succeeds, its own notification comes then.
    if (refund.status !== 'succeeded') return [{ kind: 'ignored', eventId, type: `refund.${refund.status}` }];
    const { paymentId: chargeRef, amountMinor } = refund;
    return [{ kind: 'refunded', eventId, chargeRef, refundId: refund.id, amountMinor }];
  }
}

/** POST /v3/payments: one-stage, paid on YooKassa's page by the method asked for, tagged with our ids. */
function paymentBody(request: CheckoutRequest): Record<string, unknown> {
  return {
    amount: { value: kopecksToDecimal(request.amountMinor), currency: 'RUB' },
    capture: true,
    confirmation: { type: 'redirect', return_url: request.returnUrl },
    payment_method_data: { type: METHOD_TYPES[request.method] },
    description: `Deposit ${request.depositId}`,
    metadata: { deposit_id: request.depositId, account_id: request.accountId },
  };
}

/**
 * The payment-processor port (SPEC 1.10, DESIGN.md 11, issue 27): one card or bank-transfer rail (Stripe Checkout,
 * the Russian acquirer) seen as the ledger needs it. A deposit is a checkout the person completes on the
 * processor's page; what the processor says afterwards arrives as webhooks, which are only triggers: the amount and
 * the state that money moves on are always re-read from the processor's API (`retrieve`), never taken from the
 * webhook or the request.
 *
 * Amounts are integers in the currency's minor unit (USD cents, RUB kopecks), as processors send them.
 */

export type ProcessorName = 'stripe' | 'yookassa';

export type Currency = 'usd' | 'rub';

export type CheckoutMethod = 'card' | 'sbp';

export interface CheckoutRequest {
  /** Ours (`dep_…`); sent as the processor's idempotency key and kept in its metadata, so a retry never makes two. */
  depositId: string;
  accountId: string;
  method: CheckoutMethod;
  amountMinor: bigint;
  currency: Currency;
  /** Where the processor sends the person back after paying (or giving up). */
  returnUrl: string;
}

export interface Checkout {
  /** The processor's id of this payment (a Checkout Session id, a YooKassa payment id). */
  processorRef: string;
  /** The page the person pays on. */
  checkoutUrl: string;
  /** When the processor stops accepting payment for it, if it says. */
  expiresAtMs: number | null;
}

/**
 * A payment as the processor's API shows it now. `paid` means the money is the merchant's (a Checkout Session with
 * `payment_status: paid`, a YooKassa payment `succeeded`); `pending` covers every state that may still become paid
 * (open, processing, waiting for an asynchronous method); `failed` and `expired` are final.
 */
export interface PaymentState {
  processorRef: string;
  status: 'pending' | 'paid' | 'failed' | 'expired';
  /** What was paid (or asked for, until paid), from the processor. */
  amountMinor: bigint;
  currency: Currency;
  /** Our deposit id and account id, as we put them in the payment's metadata. */
  depositId: string | null;
  accountId: string | null;
  /** The processor's id of the underlying charge, which refunds and disputes name (Stripe `pi_…`); else null. */
  chargeRef: string | null;
}

/**
 * What a verified webhook means, processor-neutral. Each carries the processor's own event id, which the inbox
 * keys on (a redelivery is the same event), and what it is about; none carries an amount to credit.
 */
export type ProcessorEvent =
  | { kind: 'payment_changed'; eventId: string; processorRef: string }
  | { kind: 'refunded'; eventId: string; chargeRef: string; refundId: string; amountMinor: bigint }
  | { kind: 'dispute_funds_withdrawn'; eventId: string; chargeRef: string; disputeId: string; amountMinor: bigint }
  | { kind: 'dispute_funds_reinstated'; eventId: string; chargeRef: string; disputeId: string; amountMinor: bigint }
  /** A verified event of a type we do not act on; kept in the inbox, answered 200 so it is not redelivered. */
  | { kind: 'ignored'; eventId: string; type: string };

/** The webhook is not the processor's (bad or missing signature, stale timestamp, unparseable body): answer 400. */
export class WebhookRejected extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRejected';
  }
}

/** The processor could not be reached or answered 5xx: retry later (the caller answers 503 or re-queues). */
export class ProcessorUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProcessorUnavailable';
  }
}

/**
 * The processor answered that the request as made cannot succeed, so retrying it is useless. `request`: what we
 * asked for is refused (an amount outside its limits, a currency it does not take, an idempotency key reused with
 * other parameters): on createCheckout the caller answers a 4xx when the client's input caused it. `credentials`:
 * our key is refused or lacks a permission, a configuration fault the caller answers as 502 and alerts on.
 */
export class ProcessorRefused extends Error {
  constructor(
    message: string,
    readonly kind: 'request' | 'credentials',
    /** The processor's own error code (Stripe `amount_too_small`, …), when it gives one. */
    readonly processorCode: string | null,
  ) {
    super(message);
    this.name = 'ProcessorRefused';
  }
}

export interface PaymentProcessor {
  readonly name: ProcessorName;
  /** The methods this rail takes. */
  readonly methods: readonly CheckoutMethod[];
  /** Throws ProcessorUnavailable when a retry may succeed, ProcessorRefused when it cannot. */
  createCheckout(request: CheckoutRequest): Promise<Checkout>;
  /** The payment as the processor's API shows it now; null when it does not know `processorRef`. */
  retrieve(processorRef: string): Promise<PaymentState | null>;
  /**
   * Verifies a webhook on its raw bytes and headers and says what it means; throws WebhookRejected for anything not
   * provably from the processor. Processors whose notifications are unsigned (YooKassa) verify by re-fetching the
   * object the notification names, so this may call their API. `remoteAddress` is the sender's address as the http
   * layer resolved it (trusted proxy hops only), for processors that also publish the ranges they send from.
   */
  parseWebhook(
    rawBody: Buffer,
    headers: Readonly<Record<string, string | undefined>>,
    remoteAddress?: string,
  ): Promise<ProcessorEvent[]>;
}

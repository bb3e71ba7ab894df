/**
 * The in-memory twin of the payment-processor port: a processor the tests drive (the person pays, pays with a
 * delayed method, gives up; the merchant refunds; the cardholder disputes and the bank rules). Like a real rail
 * it answers idempotently per deposit id, reports state only through `retrieve`, and sends webhooks that name what
 * changed and are signed (HMAC-SHA256 of the exact body with a secret of its own), so a changed byte is rejected;
 * amounts in parsed events are read from its state, never from the webhook.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { newId } from '../../lib/ids.js';
import { isRecord } from '../../lib/is-record.js';
import {
  type Checkout,
  type CheckoutMethod,
  type CheckoutRequest,
  type PaymentProcessor,
  type PaymentState,
  type ProcessorEvent,
  type ProcessorName,
  ProcessorRefused,
  ProcessorUnavailable,
  WebhookRejected,
} from './index.js';

export const MEMORY_SIGNATURE_HEADER = 'memory-signature';

/** A webhook as the route receives it. */
export interface MemoryWebhook {
  rawBody: Buffer;
  headers: Record<string, string | undefined>;
}

/** What a webhook body says: the change, by reference; parseWebhook reads the rest from the processor's state. */
type Change =
  | { type: 'payment'; ref: string }
  | { type: 'refund'; refundId: string }
  | { type: 'dispute'; disputeId: string; moved: 'withdrawn' | 'reinstated' };

type Notice = Change & { id: string };

interface Payment {
  state: PaymentState;
  /** A delayed method is under way (pending until it settles or fails). */
  processing: boolean;
}

interface Movement {
  chargeRef: string;
  amountMinor: bigint;
}

const CHECKOUT_TTL_MS = 24 * 3600_000;

export class MemoryPaymentProcessor implements PaymentProcessor {
  readonly name: ProcessorName;
  readonly methods: readonly CheckoutMethod[];
  /** Every webhook sent, oldest first. */
  readonly webhooks: MemoryWebhook[] = [];
  readonly #secret = randomBytes(32);
  readonly #payments = new Map<string, Payment>();
  readonly #byDeposit = new Map<string, Checkout>();
  readonly #refunds = new Map<string, Movement>();
  readonly #disputes = new Map<string, Movement & { status: 'open' | 'won' | 'lost' }>();
  readonly #notices = new Map<string, Notice>();
  #unavailable = false;

  constructor(options: { name?: ProcessorName; methods?: readonly CheckoutMethod[] } = {}) {
    this.name = options.name ?? 'stripe';
    this.methods = options.methods ?? ['card'];
  }

  async createCheckout(request: CheckoutRequest): Promise<Checkout> {
    this.#reachable();
    if (!this.methods.includes(request.method)) throw new RangeError(`this processor does not take ${request.method}`);
    const known = this.#byDeposit.get(request.depositId);
    if (known !== undefined) return this.#sameRequest(known, request);
    const processorRef = newId('mpay');
    const checkout = {
      processorRef,
      checkoutUrl: `https://pay.memory.invalid/checkout/${processorRef}`,
      expiresAtMs: Date.now() + CHECKOUT_TTL_MS,
    };
    const state: PaymentState = {
      processorRef,
      status: 'pending',
      amountMinor: request.amountMinor,
      currency: request.currency,
      depositId: request.depositId,
      accountId: request.accountId,
      chargeRef: null,
    };
    this.#payments.set(processorRef, { state, processing: false });
    this.#byDeposit.set(request.depositId, checkout);
    return checkout;
  }

  async retrieve(processorRef: string): Promise<PaymentState | null> {
    this.#reachable();
    const payment = this.#payments.get(processorRef);
    return payment === undefined ? null : { ...payment.state };
  }

  async parseWebhook(
    rawBody: Buffer,
    headers: Readonly<Record<string, string | undefined>>,
  ): Promise<ProcessorEvent[]> {
    const given = Buffer.from(headers[MEMORY_SIGNATURE_HEADER] ?? '', 'hex');
    const expected = createHmac('sha256', this.#secret).update(rawBody).digest();
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new WebhookRejected('bad or missing memory-signature');
    }
    const body: unknown = JSON.parse(rawBody.toString('utf8'));
    const notice = isRecord(body) && typeof body['id'] === 'string' ? this.#notices.get(body['id']) : undefined;
    if (notice === undefined) throw new WebhookRejected('signed, but names no event this processor sent');
    return [this.#eventOf(notice)];
  }

  /** The person pays in full; `delayed`: with a method that settles later (settleDelayed / failDelayed). */
  pay(processorRef: string, options: { delayed?: boolean } = {}): void {
    const payment = this.#pending(processorRef);
    payment.state.chargeRef = newId('mch');
    if (options.delayed) payment.processing = true;
    else payment.state.status = 'paid';
    this.#notify({ type: 'payment', ref: processorRef });
  }

  settleDelayed(processorRef: string): void {
    this.#processing(processorRef).state.status = 'paid';
    this.#notify({ type: 'payment', ref: processorRef });
  }

  failDelayed(processorRef: string): void {
    this.#processing(processorRef).state.status = 'failed';
    this.#notify({ type: 'payment', ref: processorRef });
  }

  /** The person never pays and the checkout lapses. */
  expire(processorRef: string): void {
    const payment = this.#pending(processorRef);
    if (payment.processing) throw new Error(`${processorRef} is being paid`);
    payment.state.status = 'expired';
    this.#notify({ type: 'payment', ref: processorRef });
  }

  /** Refunds part (or, without an amount, the rest) of a paid payment; returns the refund id. */
  refund(chargeRef: string, amountMinor?: bigint): string {
    const payment = this.#paidBy(chargeRef);
    let refunded = 0n;
    for (const refund of this.#refunds.values()) if (refund.chargeRef === chargeRef) refunded += refund.amountMinor;
    const amount = amountMinor ?? payment.state.amountMinor - refunded;
    if (amount <= 0n || refunded + amount > payment.state.amountMinor)
      throw new RangeError('refund exceeds what is left');
    const refundId = newId('mre');
    this.#refunds.set(refundId, { chargeRef, amountMinor: amount });
    this.#notify({ type: 'refund', refundId });
    return refundId;
  }

  /** The cardholder disputes (the disputed amount is withdrawn at once); returns the dispute id. */
  openDispute(chargeRef: string, amountMinor?: bigint): string {
    const payment = this.#paidBy(chargeRef);
    const disputeId = newId('mdp');
    this.#disputes.set(disputeId, { chargeRef, amountMinor: amountMinor ?? payment.state.amountMinor, status: 'open' });
    this.#notify({ type: 'dispute', disputeId, moved: 'withdrawn' });
    return disputeId;
  }

  /** The bank rules for the merchant: the withdrawn amount comes back. */
  winDispute(disputeId: string): void {
    this.#openDispute(disputeId).status = 'won';
    this.#notify({ type: 'dispute', disputeId, moved: 'reinstated' });
  }

  /** The bank rules for the cardholder: the money stays withdrawn, nothing moves. */
  loseDispute(disputeId: string): void {
    this.#openDispute(disputeId).status = 'lost';
  }

  /** Sends a webhook again, as a processor's retry does: the same body and signature. */
  redeliver(webhook: MemoryWebhook): MemoryWebhook {
    const again = { rawBody: Buffer.from(webhook.rawBody), headers: { ...webhook.headers } };
    this.webhooks.push(again);
    return again;
  }

  /** While down, createCheckout and retrieve throw ProcessorUnavailable, as an unreachable API does. */
  setUnavailable(down: boolean): void {
    this.#unavailable = down;
  }

  #eventOf(notice: Notice): ProcessorEvent {
    if (notice.type === 'payment') return { kind: 'payment_changed', eventId: notice.id, processorRef: notice.ref };
    if (notice.type === 'refund') {
      const { chargeRef, amountMinor } = this.#refunds.get(notice.refundId)!;
      return { kind: 'refunded', eventId: notice.id, chargeRef, refundId: notice.refundId, amountMinor };
    }
    const { chargeRef, amountMinor } = this.#disputes.get(notice.disputeId)!;
    const kind = notice.moved === 'withdrawn' ? 'dispute_funds_withdrawn' : 'dispute_funds_reinstated';
    return { kind, eventId: notice.id, chargeRef, disputeId: notice.disputeId, amountMinor };
  }

  #notify(change: Change): void {
    const notice: Notice = { ...change, id: newId('mevt') };
    this.#notices.set(notice.id, notice);
    const rawBody = Buffer.from(JSON.stringify(notice));
    const signature = createHmac('sha256', this.#secret).update(rawBody).digest('hex');
    this.webhooks.push({
      rawBody,
      headers: { 'content-type': 'application/json', [MEMORY_SIGNATURE_HEADER]: signature },
    });
  }

  /** A retry answers the first checkout; the same deposit id asking for something else is refused, as Stripe does. */
  #sameRequest(known: Checkout, request: CheckoutRequest): Checkout {
    const { state } = this.#payments.get(known.processorRef)!;
    if (
      state.amountMinor !== request.amountMinor ||
      state.currency !== request.currency ||
      state.accountId !== request.accountId
    ) {
      throw new ProcessorRefused(
        `deposit ${request.depositId} was made with other parameters`,
        'request',
        'idempotency_error',
      );
    }
    return known;
  }

  #reachable(): void {
    if (this.#unavailable) throw new ProcessorUnavailable('the memory processor is down on purpose');
  }

  #pending(processorRef: string): Payment {
    const payment = this.#payments.get(processorRef);
    if (payment?.state.status !== 'pending') throw new Error(`${processorRef} is not pending`);
    return payment;
  }

  #processing(processorRef: string): Payment {
    const payment = this.#pending(processorRef);
    if (!payment.processing) throw new Error(`${processorRef} has no delayed payment under way`);
    payment.processing = false;
    return payment;
  }

  #paidBy(chargeRef: string): Payment {
    for (const payment of this.#payments.values()) {
      if (payment.state.chargeRef === chargeRef && payment.state.status === 'paid') return payment;
    }
    throw new Error(`no paid payment with charge ${chargeRef}`);
  }

  #openDispute(disputeId: string): { status: 'open' | 'won' | 'lost' } {
    const dispute = this.#disputes.get(disputeId);
    if (dispute?.status !== 'open') throw new Error(`dispute ${disputeId} is not open`);
    return dispute;
  }
}

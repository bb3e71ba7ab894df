/**
 * The state behind the fake Stripe API and the changes a test drives, each as Stripe makes it: the objects it
 * changes and the events it emits (snapshots of the objects at that moment), for test/fakes/stripe.ts to serve
 * and deliver. A change Stripe would refuse (paying an expired session, refunding more than is left) throws.
 */
import { type FormValue, formString } from './stripe-form.js';
import {
  chargeObject,
  disputeObject,
  disputeTransaction,
  eventObject,
  type FakeCharge,
  type FakeDispute,
  type FakeEvent,
  type FakeIntent,
  type FakeRefund,
  type FakeSession,
  intentObject,
  invalid,
  refundObject,
  type StripeErrorBody,
  sessionObject,
} from './stripe-objects.js';

interface SessionRecord {
  session: FakeSession;
  /** `payment_intent_data[metadata]`: the PaymentIntent's metadata once there is one. */
  intentMetadata: Record<string, string>;
}

export class FakeStripeState {
  readonly sessions = new Map<string, SessionRecord>();
  readonly intents = new Map<string, FakeIntent>();
  readonly charges = new Map<string, FakeCharge>();
  readonly refunds = new Map<string, FakeRefund>();
  readonly disputes = new Map<string, FakeDispute>();

  /** POST /v1/checkout/sessions, with Stripe's checks for what our adapter sends. */
  createSession(form: Record<string, FormValue>): FakeSession | StripeErrorBody {
    if (formString(form, 'mode') !== 'payment') return invalid('Only payment mode is faked', undefined, 'mode');
    const amount = Number(formString(form, 'line_items', 0, 'price_data', 'unit_amount'));
    const currency = formString(form, 'line_items', 0, 'price_data', 'currency');
    if (!Number.isInteger(amount) || currency === undefined)
      return invalid('Missing line item price', undefined, 'line_items');
    // docs.stripe.com/currencies: the USD minimum charge is $0.50
    if (currency === 'usd' && amount < 50)
      return invalid('Amount must be at least $0.50 usd', 'amount_too_small', 'line_items[0][price_data][unit_amount]');
    const successUrl = formString(form, 'success_url');
    if (successUrl === undefined)
      return invalid('Missing required param: success_url.', 'parameter_missing', 'success_url');
    const session = sessionObject({
      amount: amount * Number(formString(form, 'line_items', 0, 'quantity') ?? '1'),
      currency,
      metadata: stringMap(form['metadata']),
      clientReferenceId: formString(form, 'client_reference_id') ?? null,
      successUrl,
      cancelUrl: formString(form, 'cancel_url') ?? successUrl,
      allowedMethods: stringList(form['allowed_payment_method_types']),
    });
    this.sessions.set(session.id, {
      session,
      intentMetadata: stringMap((form['payment_intent_data'] as Record<string, FormValue> | undefined)?.['metadata']),
    });
    return session;
  }

  /** The person pays by card: the PaymentIntent succeeds at once and the session completes paid. */
  pay(sessionId: string): FakeEvent[] {
    const record = this.#open(sessionId);
    const intent = this.#startIntent(record);
    this.#succeed(record.session, intent);
    return [eventObject('payment_intent.succeeded', intent), eventObject('checkout.session.completed', record.session)];
  }

  /** The person pays with a delayed method: the session completes unpaid while the PaymentIntent processes. */
  payAsync(sessionId: string): FakeEvent[] {
    const record = this.#open(sessionId);
    const intent = this.#startIntent(record);
    Object.assign(record.session, { status: 'complete', url: null });
    return [
      eventObject('payment_intent.processing', intent),
      eventObject('checkout.session.completed', record.session),
    ];
  }

  asyncSucceeds(sessionId: string): FakeEvent[] {
    const { session, intent } = this.#processing(sessionId);
    this.#succeed(session, intent);
    return [eventObject('checkout.session.async_payment_succeeded', session)];
  }

  asyncFails(sessionId: string): FakeEvent[] {
    const { session, intent } = this.#processing(sessionId);
    intent.status = 'requires_payment_method';
    intent['last_payment_error'] = { type: 'invalid_request_error', code: 'payment_method_provider_decline' };
    return [
      eventObject('payment_intent.payment_failed', intent),
      eventObject('checkout.session.async_payment_failed', session),
    ];
  }

  expire(sessionId: string): FakeEvent[] {
    const { session } = this.#open(sessionId);
    session.status = 'expired';
    session.url = null;
    return [eventObject('checkout.session.expired', session)];
  }

  /** POST /v1/refunds and the test's refunds alike: part or (no amount) all of what is left of the charge. */
  refund(
    paymentIntentId: string,
    amount?: number,
    status: FakeRefund['status'] = 'succeeded',
  ): { refund: FakeRefund; events: FakeEvent[] } | StripeErrorBody {
    const charge = this.chargeOf(paymentIntentId);
    if (charge === undefined)
      return invalid(`No such payment_intent: '${paymentIntentId}'`, 'resource_missing', 'payment_intent');
    const left = charge.amount - charge.amount_refunded;
    const refunded = amount ?? left;
    if (refunded <= 0 || refunded > left)
      return invalid(
        `Refund amount (${refunded}) is greater than unrefunded amount on charge (${left})`,
        'amount_too_large',
        'amount',
      );
    const refund = refundObject(charge, refunded, status);
    this.refunds.set(refund.id, refund);
    charge.amount_refunded += refunded;
    charge.refunded = charge.amount_refunded === charge.amount;
    return { refund, events: [eventObject('charge.refunded', charge), eventObject('refund.created', refund)] };
  }

  /** A pending refund reaches the card. */
  settleRefund(refundId: string): FakeEvent[] {
    const refund = this.refunds.get(refundId);
    if (refund?.status !== 'pending') throw new Error(`refund ${refundId} is not pending`);
    refund.status = 'succeeded';
    return [eventObject('charge.refund.updated', refund), eventObject('refund.updated', refund)];
  }

  /** The cardholder disputes the charge; Stripe withdraws the amount (and the fee) at once. */
  openDispute(paymentIntentId: string, amount?: number): { dispute: FakeDispute; events: FakeEvent[] } {
    const charge = this.chargeOf(paymentIntentId);
    if (charge === undefined) throw new Error(`no charge for ${paymentIntentId}`);
    const dispute = disputeObject(charge, amount ?? charge.amount);
    dispute.balance_transactions.push(disputeTransaction(dispute, -1));
    charge.disputed = true;
    this.disputes.set(dispute.id, dispute);
    return {
      dispute,
      events: [eventObject('charge.dispute.created', dispute), eventObject('charge.dispute.funds_withdrawn', dispute)],
    };
  }

  winDispute(disputeId: string): FakeEvent[] {
    const dispute = this.#openDispute(disputeId);
    dispute.balance_transactions.push(disputeTransaction(dispute, 1));
    dispute.status = 'won';
    return [eventObject('charge.dispute.funds_reinstated', dispute), eventObject('charge.dispute.closed', dispute)];
  }

  loseDispute(disputeId: string): FakeEvent[] {
    this.#openDispute(disputeId).status = 'lost';
    return [eventObject('charge.dispute.closed', this.disputes.get(disputeId))];
  }

  chargeOf(paymentIntentId: string): FakeCharge | undefined {
    const chargeId = this.intents.get(paymentIntentId)?.latest_charge;
    return chargeId === null || chargeId === undefined ? undefined : this.charges.get(chargeId);
  }

  #open(sessionId: string): SessionRecord {
    const record = this.sessions.get(sessionId);
    if (record?.session.status !== 'open') throw new Error(`session ${sessionId} is not open`);
    return record;
  }

  #startIntent(record: SessionRecord): FakeIntent {
    const intent = intentObject(record.session.amount_total, record.session.currency, record.intentMetadata);
    this.intents.set(intent.id, intent);
    record.session.payment_intent = intent.id;
    return intent;
  }

  #succeed(session: FakeSession, intent: FakeIntent): void {
    const charge = chargeObject(intent);
    this.charges.set(charge.id, charge);
    Object.assign(intent, { status: 'succeeded', amount_received: intent.amount, latest_charge: charge.id });
    Object.assign(session, { status: 'complete', payment_status: 'paid', url: null });
  }

  #processing(sessionId: string): { session: FakeSession; intent: FakeIntent } {
    const session = this.sessions.get(sessionId)?.session;
    const intent = session?.payment_intent ? this.intents.get(session.payment_intent) : undefined;
    if (session === undefined || intent?.status !== 'processing')
      throw new Error(`session ${sessionId} has no payment processing`);
    return { session, intent };
  }

  #openDispute(disputeId: string): FakeDispute {
    const dispute = this.disputes.get(disputeId);
    if (dispute?.status !== 'needs_response') throw new Error(`dispute ${disputeId} is not open`);
    return dispute;
  }
}

function stringMap(value: FormValue | undefined): Record<string, string> {
  if (value === undefined || typeof value === 'string' || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
}

function stringList(value: FormValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : ['card'];
}

/**
 * What Stripe's objects mean to the payment-processor port (issue 27, research/payments.md 2.3-2.4): the state of
 * a Checkout Session, and the normalized events of a verified webhook. Pure over what the API answered; the reads
 * an event needs (a charge's refunds, a dispute) come in through `StripeReads`, so the amounts are always the API's.
 */
import type Stripe from 'stripe';
import type { Currency, PaymentState, ProcessorEvent } from './index.js';

/** The API reads the events need, done by the adapter with its client. */
export interface StripeReads {
  /** Every refund of a charge (newest first, as Stripe lists them). */
  refundsOfCharge(chargeId: string): Promise<Stripe.Refund[]>;
  dispute(disputeId: string): Promise<Stripe.Dispute>;
}

/** Checkout events are triggers only: the domain re-retrieves the session (Stripe's fulfillment guide). */
const CHECKOUT_EVENTS: ReadonlySet<string> = new Set([
  'checkout.session.completed',
  'checkout.session.async_payment_succeeded',
  'checkout.session.async_payment_failed',
  'checkout.session.expired',
]);

/**
 * After a delayed method fails, the session stays `complete` + `unpaid` and its PaymentIntent goes back to
 * `requires_payment_method` (or `canceled`); a completed session cannot be paid again, so that is final.
 */
const FAILED_INTENT_STATUSES: ReadonlySet<string> = new Set(['requires_payment_method', 'canceled']);

export function sessionState(session: Stripe.Checkout.Session): PaymentState {
  return {
    processorRef: session.id,
    status: sessionStatus(session),
    amountMinor: BigInt(session.amount_total ?? 0),
    currency: currencyOf(session.currency),
    depositId: session.metadata?.['deposit_id'] ?? null,
    accountId: session.metadata?.['account_id'] ?? null,
    chargeRef: idOf(session.payment_intent),
  };
}

function sessionStatus(session: Stripe.Checkout.Session): PaymentState['status'] {
  if (session.payment_status === 'paid') return 'paid';
  if (session.status === 'expired') return 'expired';
  const intent = session.payment_intent;
  if (session.status === 'complete' && typeof intent === 'object' && intent !== null) {
    if (FAILED_INTENT_STATUSES.has(intent.status)) return 'failed';
  }
  // open, or complete and unpaid while a delayed method (bank debit) is processing
  return 'pending';
}

function currencyOf(currency: string | null): Currency {
  if (currency === 'usd' || currency === 'rub') return currency;
  throw new Error(`Stripe answered a session in an unexpected currency: ${String(currency)}`);
}

/** An expandable field's id, whether Stripe sent the id or the object. */
function idOf(field: string | { id: string } | null): string | null {
  return field === null ? null : typeof field === 'string' ? field : field.id;
}

/** The charge refunds and disputes are joined on: its PaymentIntent (what retrieve reports), else the charge. */
function chargeRefOf(owner: { payment_intent: string | { id: string } | null; charge: string | { id: string } }) {
  return idOf(owner.payment_intent) ?? idOf(owner.charge)!;
}

export async function eventsOf(event: Stripe.Event, reads: StripeReads): Promise<ProcessorEvent[]> {
  if (CHECKOUT_EVENTS.has(event.type)) {
    const session = event.data.object as Stripe.Checkout.Session;
    return [{ kind: 'payment_changed', eventId: event.id, processorRef: session.id }];
  }
  switch (event.type) {
    case 'charge.refunded': {
      // API 2022-11-15 on: a charge no longer carries its refunds (pgeu/pgeu-system#157), so they are listed.
      const refunds = await reads.refundsOfCharge(event.data.object.id);
      return refunds.filter((refund) => refund.status === 'succeeded').map((refund) => refundedEvent(event.id, refund));
    }
    case 'charge.refund.updated':
      // A refund that was pending when charge.refunded came counts once it has succeeded.
      return event.data.object.status === 'succeeded' ? [refundedEvent(event.id, event.data.object)] : [];
    case 'charge.dispute.funds_withdrawn':
    case 'charge.dispute.funds_reinstated': {
      const dispute = await reads.dispute(event.data.object.id);
      const withdrawn = event.type === 'charge.dispute.funds_withdrawn';
      return [
        {
          kind: withdrawn ? 'dispute_funds_withdrawn' : 'dispute_funds_reinstated',
          eventId: event.id,
          chargeRef: chargeRefOf(dispute),
          disputeId: dispute.id,
          amountMinor: disputeMovement(dispute, withdrawn ? -1 : 1),
        },
      ];
    }
    default:
      return [{ kind: 'ignored', eventId: event.id, type: event.type }];
  }
}

function refundedEvent(eventId: string, refund: Stripe.Refund): ProcessorEvent {
  if (refund.charge === null) throw new Error(`Stripe answered refund ${refund.id} without a charge`);
  return {
    kind: 'refunded',
    eventId,
    chargeRef: chargeRefOf({ payment_intent: refund.payment_intent, charge: refund.charge }),
    refundId: refund.id,
    amountMinor: BigInt(refund.amount),
  };
}

/**
 * What a dispute took (`sign` −1) or gave back (+1), from its balance transactions: the gross amount, without
 * the dispute fee, which is the platform's expense (research/payments.md 2.4, 10). They are in the settlement
 * currency; when that is not the charge's, the disputed amount in the charge's currency stands instead.
 */
function disputeMovement(dispute: Stripe.Dispute, sign: -1 | 1): bigint {
  const moves = dispute.balance_transactions.filter((transaction) => Math.sign(transaction.amount) === sign);
  if (moves.length === 0 || moves.some((transaction) => transaction.currency !== dispute.currency)) {
    return BigInt(dispute.amount);
  }
  return BigInt(Math.abs(moves.reduce((sum, transaction) => sum + transaction.amount, 0)));
}

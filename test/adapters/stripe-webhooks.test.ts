/**
 * What the Stripe adapter makes of each verified webhook (issue 27, research/payments.md 2.3-2.4): Checkout events
 * are triggers; refunds are one event per succeeded refund, read from the API; dispute movements are the amounts
 * of the dispute's balance transactions, without the fee; anything else is ignored. Deliveries arrive twice, out of
 * order and late, as Stripe's do.
 */
import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessorUnavailable } from '../../src/adapters/payment-processor/index.js';
import { eventsOf } from '../../src/adapters/payment-processor/stripe-mapping.js';
import { type StripeRig, startStripeRig } from '../fakes/stripe-rig.js';

describe('StripePaymentProcessor: webhooks to events', () => {
  let rig: StripeRig;
  let ref: string;
  beforeEach(async () => {
    rig = await startStripeRig();
    const checkout = await rig.processor.createCheckout({
      depositId: 'dep_webhooks',
      accountId: 'acc_owner',
      method: 'card',
      amountMinor: 4_000n,
      currency: 'usd',
      returnUrl: 'https://gateway.example.com/dashboard/deposits',
    });
    ref = checkout.processorRef;
  });
  afterEach(() => rig.close());

  const idOf = (type: string) => rig.fake.lastEvent(type).id;
  /** The PaymentIntent of the paid session: the charge ref refunds and disputes are joined on. */
  const paid = async () => {
    await rig.fake.pay(ref);
    await rig.takeEvents();
    return rig.fake.state.sessions.get(ref)!.session.payment_intent!;
  };

  it('every Checkout event is payment_changed for its session; the PaymentIntent events beside them are ignored', async () => {
    await rig.fake.payAsync(ref);
    await rig.fake.asyncSucceeds(ref);
    expect(await rig.takeEvents()).toEqual([
      { kind: 'ignored', eventId: idOf('payment_intent.processing'), type: 'payment_intent.processing' },
      { kind: 'payment_changed', eventId: idOf('checkout.session.completed'), processorRef: ref },
      { kind: 'payment_changed', eventId: idOf('checkout.session.async_payment_succeeded'), processorRef: ref },
    ]);
    const other = (await rig.processor.createCheckout({ ...baseRequest(), depositId: 'dep_other' })).processorRef;
    await rig.fake.payAsync(other);
    await rig.fake.asyncFails(other);
    await rig.fake.expire(
      (await rig.processor.createCheckout({ ...baseRequest(), depositId: 'dep_third' })).processorRef,
    );
    const kinds = (await rig.takeEvents()).filter((event) => event.kind === 'payment_changed');
    expect(kinds.map((event) => event.eventId)).toEqual([
      idOf('checkout.session.completed'),
      idOf('checkout.session.async_payment_failed'),
      idOf('checkout.session.expired'),
    ]);
  });

  it('charge.refunded: one refunded event per succeeded refund of the charge, amounts from the API', async () => {
    const intent = await paid();
    const first = await rig.fake.refund(intent, 1_000);
    expect(await rig.takeEvents()).toEqual([
      {
        kind: 'refunded',
        eventId: expect.stringMatching(/^evt_/),
        chargeRef: intent,
        refundId: first,
        amountMinor: 1_000n,
      },
      { kind: 'ignored', eventId: idOf('refund.created'), type: 'refund.created' },
    ]);
    const rest = await rig.fake.refund(intent);
    const refunded = (await rig.takeEvents()).filter((event) => event.kind === 'refunded');
    // the second charge.refunded names both refunds; the domain keys on the refund id
    expect(refunded).toEqual([
      expect.objectContaining({ eventId: idOf('charge.refunded'), refundId: rest, amountMinor: 3_000n }),
      expect.objectContaining({ eventId: idOf('charge.refunded'), refundId: first, amountMinor: 1_000n }),
    ]);
  });

  it('a refund made through the API (the merchant’s refund) comes back the same way', async () => {
    const intent = await paid();
    const client = new Stripe(rig.fake.secretKey, { ...hostOf(rig.fake.apiBaseUrl), maxNetworkRetries: 0 });
    const refund = await client.refunds.create({ payment_intent: intent, amount: 900 }, { idempotencyKey: 'refund:1' });
    expect(refund).toMatchObject({ object: 'refund', amount: 900, payment_intent: intent, status: 'succeeded' });
    expect((await rig.takeEvents()).filter((event) => event.kind === 'refunded')).toEqual([
      { kind: 'refunded', eventId: idOf('charge.refunded'), chargeRef: intent, refundId: refund.id, amountMinor: 900n },
    ]);
    const tooMuch = client.refunds.create({ payment_intent: intent, amount: 3_200 });
    await expect(tooMuch).rejects.toMatchObject({ code: 'amount_too_large' });
  });

  it('a pending refund counts only once charge.refund.updated says it succeeded', async () => {
    const intent = await paid();
    const refundId = await rig.fake.refund(intent, 500, { pending: true });
    expect((await rig.takeEvents()).filter((event) => event.kind === 'refunded')).toEqual([]);
    await rig.fake.settleRefund(refundId);
    expect((await rig.takeEvents()).filter((event) => event.kind === 'refunded')).toEqual([
      { kind: 'refunded', eventId: idOf('charge.refund.updated'), chargeRef: intent, refundId, amountMinor: 500n },
    ]);
  });

  it('disputes: withdrawn and reinstated carry the disputed amount (not the fee); opened and closed are ignored', async () => {
    const intent = await paid();
    const disputeId = await rig.fake.openDispute(intent, 2_500);
    const withdrawn = {
      eventId: idOf('charge.dispute.funds_withdrawn'),
      chargeRef: intent,
      disputeId,
      amountMinor: 2_500n,
    };
    expect(await rig.takeEvents()).toEqual([
      { kind: 'ignored', eventId: idOf('charge.dispute.created'), type: 'charge.dispute.created' },
      { kind: 'dispute_funds_withdrawn', ...withdrawn },
    ]);
    await rig.fake.winDispute(disputeId);
    expect(await rig.takeEvents()).toEqual([
      {
        kind: 'dispute_funds_reinstated',
        eventId: idOf('charge.dispute.funds_reinstated'),
        chargeRef: intent,
        disputeId,
        amountMinor: 2_500n,
      },
      { kind: 'ignored', eventId: idOf('charge.dispute.closed'), type: 'charge.dispute.closed' },
    ]);
  });

  it('a lost dispute moves nothing more', async () => {
    const intent = await paid();
    await rig.fake.loseDispute(await rig.fake.openDispute(intent));
    expect((await rig.takeEvents()).map((event) => event.kind)).toEqual([
      'ignored',
      'dispute_funds_withdrawn',
      'ignored',
    ]);
  });

  it('a dispute the API does not serve yet: ProcessorUnavailable, so the webhook fails and comes again', async () => {
    const intent = await paid();
    const disputeId = await rig.fake.openDispute(intent);
    rig.fake.hideFromReads(disputeId);
    const withdrawn = rig.sink.take().at(-1)!;
    const parsing = rig.processor.parseWebhook(withdrawn.rawBody, withdrawn.headers);
    await expect(parsing).rejects.toBeInstanceOf(ProcessorUnavailable);
    rig.fake.revealToReads(disputeId);
    expect(await rig.processor.parseWebhook(withdrawn.rawBody, withdrawn.headers)).toEqual([
      expect.objectContaining({ kind: 'dispute_funds_withdrawn', disputeId }),
    ]);
  });

  it('out of order (withdrawn read after the win): each event still carries its own movement', async () => {
    const intent = await paid();
    rig.fake.webhooks.hold();
    const disputeId = await rig.fake.openDispute(intent, 1_200);
    await rig.fake.winDispute(disputeId);
    await rig.fake.webhooks.release('reversed');
    const moves = (await rig.takeEvents()).filter((event) => event.kind !== 'ignored');
    expect(moves).toEqual([
      expect.objectContaining({ kind: 'dispute_funds_reinstated', amountMinor: 1_200n }),
      expect.objectContaining({ kind: 'dispute_funds_withdrawn', amountMinor: 1_200n }),
    ]);
  });

  it('a refund and the payment delivered in reverse, and twice: the same events, keyed by the same ids', async () => {
    rig.fake.webhooks.hold();
    await rig.fake.pay(ref);
    const intent = rig.fake.state.sessions.get(ref)!.session.payment_intent!;
    const refundId = await rig.fake.refund(intent, 700);
    await rig.fake.webhooks.release('reversed');
    await rig.fake.webhooks.redeliver(idOf('checkout.session.completed'));
    const events = (await rig.takeEvents()).filter((event) => event.kind !== 'ignored');
    const completed = { kind: 'payment_changed', eventId: idOf('checkout.session.completed'), processorRef: ref };
    expect(events).toEqual([
      { kind: 'refunded', eventId: idOf('charge.refunded'), chargeRef: intent, refundId, amountMinor: 700n },
      completed,
      completed,
    ]);
  });
});

describe('dispute amounts settled in another currency', () => {
  it('the disputed amount in the charge’s currency stands when the balance transactions are in another', async () => {
    const dispute = {
      id: 'dp_1',
      amount: 5_000,
      currency: 'usd',
      charge: 'ch_1',
      payment_intent: 'pi_1',
      balance_transactions: [{ amount: -4_610, currency: 'eur' }],
    } as unknown as Stripe.Dispute;
    const event = { id: 'evt_1', type: 'charge.dispute.funds_withdrawn', data: { object: dispute } } as Stripe.Event;
    const reads = { refundsOfCharge: async () => [], dispute: async () => dispute };
    expect(await eventsOf(event, reads)).toEqual([
      { kind: 'dispute_funds_withdrawn', eventId: 'evt_1', chargeRef: 'pi_1', disputeId: 'dp_1', amountMinor: 5_000n },
    ]);
  });
});

function baseRequest() {
  return {
    accountId: 'acc_owner',
    method: 'card' as const,
    amountMinor: 1_000n,
    currency: 'usd' as const,
    returnUrl: 'https://gateway.example.com/dashboard/deposits',
  };
}

function hostOf(apiBaseUrl: string) {
  const url = new URL(apiBaseUrl);
  return { host: url.hostname, port: Number(url.port), protocol: 'http' as const };
}

/**
 * Only Stripe's own events get through (issue 27 acceptance 4, research/payments.md 2.2): a signature from another
 * secret, a body changed after signing, a timestamp outside the 300 s tolerance or no signature at all is
 * WebhookRejected; while a signing secret is rolled, events signed with the old one of the list still verify.
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebhookRejected } from '../../src/adapters/payment-processor/index.js';
import { parse, type StripeRig, startStripeRig } from '../fakes/stripe-rig.js';
import type { ReceivedWebhook } from '../fakes/stripe-webhook-sink.js';

const newSecret = () => `whsec_${randomBytes(16).toString('hex')}`;

describe('StripePaymentProcessor: webhook signatures', () => {
  let rig: StripeRig;
  let ref: string;
  beforeEach(async () => {
    rig = await startStripeRig();
    ref = (
      await rig.processor.createCheckout({
        depositId: 'dep_signed',
        accountId: 'acc_owner',
        method: 'card',
        amountMinor: 1_000n,
        currency: 'usd',
        returnUrl: 'https://gateway.example.com/dashboard/deposits',
      })
    ).processorRef;
  });
  afterEach(() => rig.close());

  /** The checkout.session.completed webhook of paying the session, as received. */
  const completedWebhook = async (): Promise<ReceivedWebhook> => {
    await rig.fake.pay(ref);
    return rig.sink.take().at(-1)!;
  };
  const rejection = (webhook: ReceivedWebhook, processor = rig.processor) =>
    parse(processor, webhook).then(
      () => null,
      (error: unknown) => error,
    );

  it('the fake’s event verifies as sent', async () => {
    const webhook = await completedWebhook();
    expect(await parse(rig.processor, webhook)).toEqual([
      { kind: 'payment_changed', eventId: rig.fake.lastEvent('checkout.session.completed').id, processorRef: ref },
    ]);
    expect(webhook.headers['content-type']).toMatch(/^application\/json/);
    expect(rig.fake.webhooks.deliveries.at(-1)).toEqual({
      eventId: rig.fake.lastEvent('checkout.session.completed').id,
      type: 'checkout.session.completed',
      status: 200,
    });
  });

  it('signed with another secret: rejected', async () => {
    rig.fake.webhooks.signingSecret = newSecret();
    expect(await rejection(await completedWebhook())).toBeInstanceOf(WebhookRejected);
  });

  it('a body changed after signing (one amount digit): rejected', async () => {
    const webhook = await completedWebhook();
    const text = webhook.rawBody.toString('utf8');
    const changed = text.replace('"amount_total": 1000', '"amount_total": 9000');
    expect(changed).not.toBe(text);
    expect(await rejection({ ...webhook, rawBody: Buffer.from(changed) })).toBeInstanceOf(WebhookRejected);
  });

  it('a timestamp outside the tolerance (an hour old): rejected, though the signature over it is right', async () => {
    const webhook = await completedWebhook();
    await rig.fake.webhooks.redeliver(JSON.parse(webhook.rawBody.toString('utf8')).id, {
      timestampSec: Math.floor(Date.now() / 1000) - 3600,
    });
    const stale = rig.sink.take().at(-1)!;
    expect(stale.rawBody.equals(webhook.rawBody)).toBe(true);
    const error = await rejection(stale);
    expect(error).toBeInstanceOf(WebhookRejected);
    expect((error as Error).message).toMatch(/tolerance/i);
  });

  it('no Stripe-Signature header, or one that is not a signature: rejected', async () => {
    const webhook = await completedWebhook();
    const { 'stripe-signature': _dropped, ...unsigned } = webhook.headers;
    expect(await rejection({ ...webhook, headers: unsigned })).toBeInstanceOf(WebhookRejected);
    const bogus = { ...webhook.headers, 'stripe-signature': 'v1=deadbeef' };
    expect(await rejection({ ...webhook, headers: bogus })).toBeInstanceOf(WebhookRejected);
  });

  it('a rolled secret: with [new, old] configured, events signed with either verify; without old, old ones fail', async () => {
    const oldSecret = rig.fake.webhooks.signingSecret;
    const rolled = newSecret();
    const both = rig.processorWith({ webhookSecrets: [rolled, oldSecret] });
    const signedOld = await completedWebhook();
    expect(await parse(both, signedOld)).toEqual([expect.objectContaining({ kind: 'payment_changed' })]);
    rig.fake.webhooks.signingSecret = rolled;
    await rig.fake.webhooks.redeliver(rig.fake.lastEvent('checkout.session.completed').id);
    const signedNew = rig.sink.take().at(-1)!;
    expect(await parse(both, signedNew)).toEqual(await parse(both, signedOld));
    expect(await rejection(signedOld, rig.processorWith({ webhookSecrets: [rolled] }))).toBeInstanceOf(WebhookRejected);
  });

  it('an event signed right but not JSON is rejected, not thrown as a parse error', async () => {
    const payload = 'not json {';
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: rig.fake.webhooks.signingSecret });
    const webhook = { rawBody: Buffer.from(payload), headers: { 'stripe-signature': header } };
    expect(await rejection(webhook)).toBeInstanceOf(WebhookRejected);
  });

  it('at least one signing secret is required', () => {
    expect(() => rig.processorWith({ webhookSecrets: [] })).toThrow(RangeError);
  });
});

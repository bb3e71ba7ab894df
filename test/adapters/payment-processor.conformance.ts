/**
 * The behavioural contract of the payment-processor port (src/adapters/payment-processor/index.ts, issue 27), run
 * against the memory twin and each real rail behind its loopback fake (payment-processor.test.ts). A rail plugs
 * in with a small driver: what the person and the merchant do on the processor's side, and the webhooks that come
 * out. The suite holds what the deposits domain relies on: a checkout per deposit id (a retry makes no second
 * one), the state and amount only from `retrieve`, webhooks that parse to triggers carrying the processor's event
 * id (the same on a replay or a redelivery), anything altered rejected, an unknown payment null, and an outage
 * as ProcessorUnavailable.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type CheckoutMethod,
  type CheckoutRequest,
  type Currency,
  type PaymentProcessor,
  type ProcessorEvent,
  ProcessorUnavailable,
  WebhookRejected,
} from '../../src/adapters/payment-processor/index.js';

/** A webhook as the route receives it: the exact bytes and the headers. */
export interface ReceivedWebhook {
  rawBody: Buffer;
  headers: Record<string, string | undefined>;
}

export interface PaymentProcessorDriver {
  processor: PaymentProcessor;
  /** A method and a currency this rail takes; the suite fills in the rest of each request. */
  method: CheckoutMethod;
  currency: Currency;
  /** An id of this processor's form that it never issued. */
  unknownRef: string;
  /** Webhooks are signed over their exact bytes (not re-fetched unsigned notices): the same JSON re-serialized, or
   * a body without its signature headers, must be rejected too. */
  signsBytes: boolean;
  /** The payment is itself the charge that refunds name (YooKassa: `refund.payment_id`), so `retrieve` shows it as
   * `chargeRef` from the start; otherwise (Stripe's `pi_…`) there is no charge, and `chargeRef` is null, until paid. */
  chargeIsThePayment: boolean;
  /** The person pays the checkout in full. */
  pay(processorRef: string): Promise<void>;
  /** The person never pays and the processor closes the payment; returns the final status it then reports. */
  abandon(processorRef: string): Promise<'expired' | 'failed'>;
  /** The merchant refunds part of a paid payment, by the charge `retrieve` reported. */
  refund(chargeRef: string, amountMinor: bigint): Promise<void>;
  /** The webhooks sent since the last call, oldest first. */
  takeWebhooks(): Promise<ReceivedWebhook[]>;
  /** The processor sends this webhook's event again (its own retry); returns what arrives. */
  redeliver(webhook: ReceivedWebhook): Promise<ReceivedWebhook>;
  /** Until restore, the processor's API cannot be reached. */
  outage(): Promise<void>;
  restore(): Promise<void>;
  cleanup(): Promise<void>;
}

const AMOUNT = 2_500n;

/** The charge `retrieve` shows for a payment not (or never) paid. */
const unpaidChargeRef = (driver: PaymentProcessorDriver, processorRef: string) =>
  driver.chargeIsThePayment ? processorRef : null;

const rejectionOf = (parsing: Promise<unknown>) =>
  parsing.then(
    () => null,
    (error: unknown) => error,
  );

export function paymentProcessorConformance(name: string, make: () => Promise<PaymentProcessorDriver>): void {
  describe(`PaymentProcessor conformance: ${name}`, () => {
    let driver: PaymentProcessorDriver;
    let processor: PaymentProcessor;
    beforeEach(async () => {
      driver = await make();
      processor = driver.processor;
    });
    afterEach(() => driver.cleanup());

    const request = (overrides: Partial<CheckoutRequest> = {}): CheckoutRequest => ({
      depositId: `dep_${randomBytes(8).toString('hex')}`,
      accountId: `acc_${randomBytes(8).toString('hex')}`,
      method: driver.method,
      amountMinor: AMOUNT,
      currency: driver.currency,
      returnUrl: 'https://gateway.example.com/dashboard/deposits',
      ...overrides,
    });

    /** Every non-ignored event the webhooks parse to, in order, with the webhook each came from. */
    const parsed = async (webhooks: ReceivedWebhook[]) => {
      const found: { event: ProcessorEvent; webhook: ReceivedWebhook }[] = [];
      for (const webhook of webhooks) {
        for (const event of await processor.parseWebhook(webhook.rawBody, webhook.headers)) {
          if (event.kind !== 'ignored') found.push({ event, webhook });
        }
      }
      return found;
    };

    /** A checkout paid, with the webhook that said so. */
    const paidCheckout = async () => {
      const req = request();
      const { processorRef } = await processor.createCheckout(req);
      await driver.takeWebhooks();
      await driver.pay(processorRef);
      const [changed] = (await parsed(await driver.takeWebhooks())).filter(
        ({ event }) => event.kind === 'payment_changed',
      );
      expect(changed?.event).toEqual({ kind: 'payment_changed', eventId: expect.any(String), processorRef });
      return { req, processorRef, webhook: changed!.webhook, eventId: changed!.event.eventId };
    };

    it('takes the method it is driven with', () => {
      expect(processor.methods).toContain(driver.method);
    });

    it('a checkout has a ref and a page; retrieve shows it pending with our ids and the amount asked', async () => {
      const req = request();
      const checkout = await processor.createCheckout(req);
      expect(checkout.processorRef).toEqual(expect.any(String));
      expect(new URL(checkout.checkoutUrl).protocol).toBe('https:');
      expect(checkout.expiresAtMs === null || checkout.expiresAtMs > Date.now()).toBe(true);
      expect(await processor.retrieve(checkout.processorRef)).toEqual({
        processorRef: checkout.processorRef,
        status: 'pending',
        amountMinor: AMOUNT,
        currency: driver.currency,
        depositId: req.depositId,
        accountId: req.accountId,
        chargeRef: unpaidChargeRef(driver, checkout.processorRef),
      });
    });

    it('the same deposit id twice is the same checkout (a retry never makes a second payment)', async () => {
      const req = request();
      const first = await processor.createCheckout(req);
      const again = await processor.createCheckout(req);
      expect(again.processorRef).toBe(first.processorRef);
      expect((await processor.createCheckout(request())).processorRef).not.toBe(first.processorRef);
    });

    it('paid: a webhook says the payment changed; retrieve says paid, the amount and a charge ref', async () => {
      const { req, processorRef } = await paidCheckout();
      const state = await processor.retrieve(processorRef);
      expect(state).toMatchObject({ status: 'paid', amountMinor: AMOUNT, depositId: req.depositId });
      expect(state!.chargeRef).toEqual(driver.chargeIsThePayment ? processorRef : expect.any(String));
    });

    it('a replayed webhook parses to the same events; a redelivery carries the same event id', async () => {
      const { webhook, eventId } = await paidCheckout();
      const first = await processor.parseWebhook(webhook.rawBody, webhook.headers);
      expect(await processor.parseWebhook(webhook.rawBody, webhook.headers)).toEqual(first);
      const again = await driver.redeliver(webhook);
      expect((await parsed([again])).map(({ event }) => event.eventId)).toEqual([eventId]);
    });

    it('a webhook naming another payment than it was sent for is rejected; so is a body that is not JSON', async () => {
      const { webhook, processorRef } = await paidCheckout();
      // another last character: always another id (a ref that already ends in X would forge nothing)
      const other = `${processorRef.slice(0, -1)}${processorRef.endsWith('X') ? 'Y' : 'X'}`;
      const forged = Buffer.from(webhook.rawBody.toString('utf8').replaceAll(processorRef, other));
      expect(forged.equals(webhook.rawBody)).toBe(false);
      expect(await rejectionOf(processor.parseWebhook(forged, webhook.headers))).toBeInstanceOf(WebhookRejected);
      const garbage = Buffer.from('not json {');
      expect(await rejectionOf(processor.parseWebhook(garbage, webhook.headers))).toBeInstanceOf(WebhookRejected);
    });

    it('a signed rail rejects the same JSON re-serialized, and a body without its signature headers', async (ctx) => {
      if (!driver.signsBytes) ctx.skip();
      const { webhook } = await paidCheckout();
      // the same value with other whitespace: what a JSON body parser in front of the route hands on (issue 27, 6.4.4)
      const reserialized = Buffer.from(JSON.stringify(JSON.parse(webhook.rawBody.toString('utf8')), null, '\t'));
      expect(reserialized.equals(webhook.rawBody)).toBe(false);
      expect(await rejectionOf(processor.parseWebhook(reserialized, webhook.headers))).toBeInstanceOf(WebhookRejected);
      const unsigned = { 'content-type': 'application/json' };
      expect(await rejectionOf(processor.parseWebhook(webhook.rawBody, unsigned))).toBeInstanceOf(WebhookRejected);
    });

    it('abandoned: a webhook says the payment changed; retrieve reports the final status, no charge', async () => {
      const { processorRef } = await processor.createCheckout(request());
      await driver.takeWebhooks();
      const final = await driver.abandon(processorRef);
      const events = (await parsed(await driver.takeWebhooks())).map(({ event }) => event);
      expect(events).toEqual([{ kind: 'payment_changed', eventId: expect.any(String), processorRef }]);
      const chargeRef = unpaidChargeRef(driver, processorRef);
      expect(await processor.retrieve(processorRef)).toMatchObject({ status: final, chargeRef });
    });

    it('refunds: each refund is one event with its own id and amount, on the charge retrieve named', async () => {
      const { processorRef } = await paidCheckout();
      const { chargeRef } = (await processor.retrieve(processorRef))!;
      await driver.refund(chargeRef!, 1_000n);
      await driver.refund(chargeRef!, 1_500n);
      const refunds = new Map<string, bigint>();
      for (const { event } of await parsed(await driver.takeWebhooks())) {
        expect(event).toMatchObject({ kind: 'refunded', chargeRef });
        if (event.kind !== 'refunded') continue;
        // a rail may name a refund again in a later webhook (Stripe lists the charge's refunds); never another amount
        expect(refunds.get(event.refundId) ?? event.amountMinor).toBe(event.amountMinor);
        refunds.set(event.refundId, event.amountMinor);
      }
      expect([...refunds.values()].sort()).toEqual([1_000n, 1_500n]);
    });

    it('a payment it never issued is null', async () => {
      expect(await processor.retrieve(driver.unknownRef)).toBeNull();
    });

    it('an outage is ProcessorUnavailable for create and retrieve; once back, the same deposit goes through', async () => {
      const req = request();
      const { processorRef } = await processor.createCheckout(request());
      await driver.outage();
      expect(await rejectionOf(processor.createCheckout(req))).toBeInstanceOf(ProcessorUnavailable);
      expect(await rejectionOf(processor.retrieve(processorRef))).toBeInstanceOf(ProcessorUnavailable);
      await driver.restore();
      const checkout = await processor.createCheckout(req);
      expect(await processor.retrieve(checkout.processorRef)).toMatchObject({
        depositId: req.depositId,
        status: 'pending',
      });
    });
  });
}

/**
 * YooKassa's unsigned notifications through the adapter's parseWebhook (issue 27; research/payments.md 6.4 items 1,
 * 3, 5 and 21): posted by the fake acquirer to a webhook endpoint as YooKassa posts them, each re-fetched from the
 * API, so the event and everything in it come from the API's answer. Forged, malformed, repeated and out-of-order
 * notifications, and the optional sender ranges.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ProcessorUnavailable, WebhookRejected } from '../../src/adapters/payment-processor/index.js';
import { YOOKASSA_SENDER_RANGES } from '../../src/adapters/payment-processor/yookassa-senders.js';
import { startYooKassaDriver, type YooKassaDriver } from '../fakes/yookassa-driver.js';

let driver: YooKassaDriver;
afterEach(() => driver.close());

const started = async (options: Parameters<typeof startYooKassaDriver>[0] = {}) =>
  (driver = await startYooKassaDriver(options));

const rejectedBy = async (body: unknown) => {
  const error = await driver.processor.parseWebhook(Buffer.from(JSON.stringify(body)), {}).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookRejected);
  return error as WebhookRejected;
};

describe('parseWebhook: what the API says, never the notification', () => {
  it('payment.succeeded is payment_changed keyed by the status the API shows; retrieve says paid', async () => {
    await started();
    const { processorRef } = await driver.create({ amountMinor: 99_900n });
    await driver.pay(processorRef);
    expect(await driver.notify()).toEqual([
      { kind: 'payment_changed', eventId: `payment.succeeded:${processorRef}`, processorRef },
    ]);
    expect(await driver.processor.retrieve(processorRef)).toMatchObject({ status: 'paid', amountMinor: 99_900n });
    expect(driver.fake.requests.at(-2)).toMatchObject({ method: 'GET', path: `/v3/payments/${processorRef}` });
  });

  it('payment.canceled is payment_changed; retrieve says expired or failed', async () => {
    await started();
    const { processorRef } = await driver.create();
    await driver.expire(processorRef);
    expect(await driver.notify()).toEqual([
      { kind: 'payment_changed', eventId: `payment.canceled:${processorRef}`, processorRef },
    ]);
  });

  it('a redelivered notification maps to the same event id each time', async () => {
    await started();
    const { processorRef } = await driver.create();
    await driver.pay(processorRef);
    const events = await driver.notify({ times: 3 });
    expect(events.map((e) => e.eventId)).toEqual(Array(3).fill(`payment.succeeded:${processorRef}`));
    expect(driver.fake.outbox.answers.map((a) => a.status)).toEqual([200, 200, 200]);
  });

  it('out of order: a stale waiting_for_capture after succeeded reads as the succeeded it is now', async () => {
    await started();
    const { processorRef } = await driver.create();
    driver.fake.authorize(processorRef);
    await driver.pay(processorRef);
    const events = await driver.notify({ order: 'reversed' });
    expect(events.map((e) => e.eventId)).toEqual(Array(2).fill(`payment.succeeded:${processorRef}`));
  });

  it('refund.succeeded is refunded with the payment as the charge and the amount from the API', async () => {
    await started();
    const { processorRef } = await driver.create({ amountMinor: 100_000n });
    await driver.pay(processorRef);
    const refundId = await driver.refund(processorRef, 30_001n);
    // Delivered newest first: the refund's notification before the payment's (research 6.4 item 3).
    expect(await driver.notify({ order: 'reversed' })).toEqual([
      {
        kind: 'refunded',
        eventId: `refund.succeeded:${refundId}`,
        chargeRef: processorRef,
        refundId,
        amountMinor: 30_001n,
      },
      { kind: 'payment_changed', eventId: `payment.succeeded:${processorRef}`, processorRef },
    ]);
  });

  it('a refund claimed succeeded in the notification but not by the API is ignored, with a larger amount too', async () => {
    await started();
    const { processorRef } = await driver.create({ amountMinor: 100_000n });
    await driver.pay(processorRef);
    const refundId = await driver.refund(processorRef, 500n);
    await driver.notify();
    driver.fake.patch('refund', refundId, { status: 'pending' });
    driver.fake.forge.notification('refund.succeeded', {
      id: refundId,
      payment_id: processorRef,
      status: 'succeeded',
      amount: { value: '1000.00', currency: 'RUB' },
    });
    expect(await driver.notify()).toEqual([
      { kind: 'ignored', eventId: `refund.pending:${refundId}`, type: 'refund.pending' },
    ]);
  });

  it('a forged succeeded for a pending payment is payment_changed, and retrieve still says pending', async () => {
    await started();
    const { processorRef } = await driver.create({ amountMinor: 5_000_000n });
    driver.fake.forge.succeeded(processorRef);
    expect(await driver.notify()).toEqual([
      { kind: 'payment_changed', eventId: `payment.pending:${processorRef}`, processorRef },
    ]);
    expect(await driver.processor.retrieve(processorRef)).toMatchObject({ status: 'pending' });
    // The true notification later is a different event, not swallowed as a redelivery of the forged one.
    await driver.pay(processorRef);
    expect((await driver.notify()).map((e) => e.eventId)).toEqual([`payment.succeeded:${processorRef}`]);
  });

  it('a notification naming a payment or refund the API does not know is rejected (400)', async () => {
    await started();
    driver.fake.forge.unknownPayment();
    driver.fake.forge.notification('refund.succeeded', {
      id: '2c0c9f4a-000f-5000-8000-1b9d5c6d0e41',
      payment_id: 'x',
      status: 'succeeded',
      amount: { value: '1.00', currency: 'RUB' },
    });
    expect(await driver.notify()).toEqual([]);
    expect(driver.fake.outbox.answers.map((a) => a.status)).toEqual([400, 400]);
    expect(driver.receiver.received.map((r) => r.status === 400 && r.error.message)).toEqual([
      expect.stringMatching(/names payment .* unknown to the API/),
      expect.stringMatching(/names refund .* unknown to the API/),
    ]);
  });

  it('the API unreachable while verifying is ProcessorUnavailable (503): YooKassa delivers again', async () => {
    await started();
    const { processorRef } = await driver.create();
    await driver.pay(processorRef);
    driver.fake.failNext(500);
    expect(await driver.notify()).toEqual([]);
    expect(driver.receiver.received[0]).toMatchObject({ status: 503, error: expect.any(ProcessorUnavailable) });
  });

  it.each([
    ['not JSON', 'payment.succeeded'],
    ['a JSON array', []],
    ['no object', { type: 'notification', event: 'payment.succeeded' }],
    ['no object id', { type: 'notification', event: 'payment.succeeded', object: { status: 'succeeded' } }],
    ['an id with a slash', { type: 'notification', event: 'payment.succeeded', object: { id: '../refunds/1' } }],
    ['another type', { type: 'event', event: 'payment.succeeded', object: { id: 'abc' } }],
    ['a payout event', { type: 'notification', event: 'payout.succeeded', object: { id: 'po-1' } }],
    ['a saved-method event', { type: 'notification', event: 'payment_method.active', object: { id: 'pm-1' } }],
  ])('rejects a body with %s without asking the API', async (_what, body) => {
    await started();
    const raw = typeof body === 'string' ? Buffer.from(body) : Buffer.from(JSON.stringify(body));
    await expect(driver.processor.parseWebhook(raw, {})).rejects.toBeInstanceOf(WebhookRejected);
    expect(driver.fake.requests).toEqual([]);
  });
});

describe('parseWebhook: the optional sender ranges', () => {
  it('from outside the configured ranges: rejected before any API call', async () => {
    await started({ senderRanges: YOOKASSA_SENDER_RANGES });
    const { processorRef } = await driver.create();
    await driver.pay(processorRef);
    const before = driver.fake.requests.length;
    expect(await driver.notify()).toEqual([]);
    expect(driver.fake.outbox.answers.map((a) => a.status)).toEqual([400]);
    expect(driver.fake.requests.length).toBe(before);
    const error = await rejectedBy({ type: 'notification', event: 'payment.succeeded', object: { id: processorRef } });
    expect(error.message).toMatch(/unknown address/);
  });

  it('from inside them (as an IPv4-mapped IPv6 address too): verified as usual', async () => {
    await started({ senderRanges: ['127.0.0.1/32'] });
    const { processorRef } = await driver.create();
    await driver.pay(processorRef);
    expect(await driver.notify()).toHaveLength(1);
    const raw = Buffer.from(
      JSON.stringify({ type: 'notification', event: 'payment.succeeded', object: { id: processorRef } }),
    );
    expect(await driver.processor.parseWebhook(raw, {}, '::ffff:127.0.0.1')).toHaveLength(1);
    await expect(driver.processor.parseWebhook(raw, {}, '127.0.0.2')).rejects.toBeInstanceOf(WebhookRejected);
  });

  it('the published list holds YooKassa’s ranges and nothing near them', async () => {
    await started({ senderRanges: YOOKASSA_SENDER_RANGES });
    const raw = Buffer.from('not even JSON');
    // Inside a range, the sender check passes and the body is what is rejected; outside, the sender is.
    const reason = (address: string) => driver.processor.parseWebhook(raw, {}, address).catch((e: Error) => e.message);
    for (const inside of ['185.71.76.31', '77.75.154.200', '77.75.156.35', '2a02:5180::1'])
      expect(await reason(inside)).toMatch(/not JSON/);
    for (const outside of ['185.71.76.32', '77.75.156.12', '2a02:5181::1', 'not-an-address'])
      expect(await reason(outside)).toMatch(/not YooKassa's/);
  });
});

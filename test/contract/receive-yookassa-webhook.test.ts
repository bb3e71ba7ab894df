import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { type PaymentsHarness, startPaymentsHarness } from '../setup/payments.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(() => h.close());

const PATH = '/v1/payments/webhooks/yookassa';
const post = (body: unknown) => call(h.baseUrl, 'POST', PATH, { body });

describe('POST /v1/payments/webhooks/yookassa', () => {
  it('200 received: a notification of a succeeded payment credits its deposit; a redelivery changes nothing', async () => {
    const { apiKey } = await h.newAccount();
    await h.deposit(apiKey, { method: 'sbp', amount_rub: 240 });
    h.yookassa.succeed(h.lastYooKassaPayment());
    const [notification] = h.yookassa.outbox.queued.splice(0);
    expect(expectNativeOk(await post(notification))).toEqual({ received: true });
    expectNativeOk(await post(notification));
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd).toBe(3);
  });

  it('400 webhook_rejected: a payment YooKassa does not know, or a body that is no notification', async () => {
    const unknown = {
      type: 'notification',
      event: 'payment.succeeded',
      object: { id: '2d9a7f3e-000f-5000-8000-1c58e7f0a9b1' },
    };
    expectNativeError(await post(unknown), 400, 'webhook_rejected');
    expectNativeError(await post({ hello: 'world' }), 400, 'webhook_rejected');
  });

  it('503 payment_rail_unavailable while YooKassa cannot be asked, so it delivers again', async () => {
    const { apiKey } = await h.newAccount();
    await h.deposit(apiKey, { method: 'sbp', amount_rub: 160 });
    h.yookassa.succeed(h.lastYooKassaPayment());
    const [notification] = h.yookassa.outbox.queued.splice(0);
    h.yookassa.failNext(502);
    expectNativeError(await post(notification), 503, 'payment_rail_unavailable');
    expectNativeOk(await post(notification));
  });

  it('413 request_too_large: a body past the cap', async () => {
    const response = await call(h.baseUrl, 'POST', PATH, { body: { padding: 'x'.repeat(300_000) } });
    expectNativeError(response, 413, 'request_too_large');
  });
});

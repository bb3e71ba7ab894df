import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { type PaymentsHarness, startPaymentsHarness } from '../setup/payments.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(() => h.close());

const create = (key: string, body: unknown, headers: Record<string, string> = {}) =>
  call(h.baseUrl, 'POST', '/v1/payments/deposits', { key, body, headers });

describe('POST /v1/payments/deposits', () => {
  it('201: an SBP deposit, pending, with the acquirer’s page to pay on', async () => {
    const { apiKey } = await h.newAccount();
    const deposit = expectNativeOk(await create(apiKey, { method: 'sbp', amount_rub: 1234.5 }), 201);
    expect(deposit).toMatchObject({
      method: 'sbp',
      status: 'pending',
      amount_usd: null,
      amount_rub: 1234.5,
      credited_usd: null,
      refunded_usd: 0,
      address: null,
      tx_id: null,
      credited_at: null,
    });
    expect(deposit.deposit_id).toMatch(/^dep_/);
    const payment = h.yookassa.payments.get(h.lastYooKassaPayment())!;
    expect(payment.amount).toEqual({ value: '1234.50', currency: 'RUB' });
    expect(deposit.checkout_url).toBe((payment.confirmation as { confirmation_url: string }).confirmation_url);
  });

  it('201 replayed for the same Idempotency-Key: one deposit, one payment; 409 for another body', async () => {
    const { apiKey } = await h.newAccount();
    const before = h.yookassa.payments.size;
    await expectIdempotencyContract(
      (body, key) => create(apiKey, body, { 'idempotency-key': key }),
      { first: { method: 'sbp', amount_rub: 500 }, other: { method: 'sbp', amount_rub: 600 } },
      'native',
      201,
    );
    expect(h.yookassa.payments.size).toBe(before + 1);
  });

  it('400 invalid_deposit: an amount the method does not take, or none where it needs one', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await create(apiKey, { method: 'sbp' }), 400, 'invalid_deposit');
    expectNativeError(await create(apiKey, { method: 'card', amount_rub: 100 }), 400, 'invalid_deposit');
    expectNativeError(await create(apiKey, { method: 'usdt_trc20', amount_usd: 10 }), 400, 'invalid_deposit');
  });

  it('400 invalid_request: an unknown method, an amount below the minimum or with fractions of a cent', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await create(apiKey, { method: 'paypal', amount_usd: 10 }), 400, 'invalid_request');
    expectNativeError(await create(apiKey, { method: 'card', amount_usd: 1 }), 400, 'invalid_request');
    expectNativeError(await create(apiKey, { method: 'card', amount_usd: 10.001 }), 400, 'invalid_request');
  });

  it('502 payment_processor_refused: the processor refuses the checkout; nothing is charged, the deposit failed', async () => {
    const { apiKey } = await h.newAccount();
    h.stripe.failRequests(400, 2);
    const refused = await create(apiKey, { method: 'card', amount_usd: 10 });
    h.stripe.failRequests(null);
    expectNativeError(refused, 502, 'payment_processor_refused');
    expect(refused.headers.get('x-should-retry')).toBe('false');
    const deposits = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/payments/deposits', { key: apiKey })).deposits;
    expect(deposits).toMatchObject([{ method: 'card', status: 'failed' }]);
  });

  it('401 without a key', async () => {
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/payments/deposits', { body: {} }),
      401,
      'authentication_required',
    );
  });

  it('503 payment_rail_unavailable: a rail with no settings, or a processor that does not answer', async () => {
    const { apiKey } = await h.newAccount();
    const usdt = await create(apiKey, { method: 'usdt_trc20' });
    expectNativeError(usdt, 503, 'payment_rail_unavailable');
    expect(usdt.headers.get('x-should-retry')).toBe('true');
    expect(usdt.body.data.meta.method).toBe('usdt_trc20');
    h.yookassa.failNext(500, 500, 500, 500);
    const down = await create(apiKey, { method: 'sbp', amount_rub: 300 });
    expectNativeError(down, 503, 'payment_rail_unavailable');
    const deposits = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/payments/deposits', { key: apiKey })).deposits;
    expect(deposits).toMatchObject([{ method: 'sbp', status: 'failed' }]);
  });
});

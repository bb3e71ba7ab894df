/**
 * The YooKassa adapter's checkout and retrieve against the fake acquirer (test/fakes/yookassa.ts): the payment on
 * the wire (issue 27: one-stage, redirect, card or SBP, kopecks as an exact decimal string, our ids in metadata, the
 * deposit id as Idempotence-Key), every status mapping, and which failures are ProcessorUnavailable (try later) and
 * which are our mistakes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ProcessorUnavailable } from '../../src/adapters/payment-processor/index.js';
import { YooKassaProcessor } from '../../src/adapters/payment-processor/yookassa.js';
import { startYooKassaDriver, type YooKassaDriver } from '../fakes/yookassa-driver.js';

let driver: YooKassaDriver;
beforeEach(async () => {
  driver = await startYooKassaDriver();
});
afterEach(() => driver.close());

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: unknown) => error as Error,
  );

describe('createCheckout', () => {
  it('creates a one-stage card payment with the exact ruble amount, our ids and the deposit id as the key', async () => {
    const checkout = await driver.create({ depositId: 'dep_card1', accountId: 'acc_7', amountMinor: 123_456n });
    const [request] = driver.fake.requests;
    expect(request).toMatchObject({ method: 'POST', path: '/v3/payments', idempotenceKey: 'dep_card1' });
    expect(request!.body).toEqual({
      amount: { value: '1234.56', currency: 'RUB' },
      capture: true,
      confirmation: { type: 'redirect', return_url: 'https://gateway.example.com/dashboard/billing?deposit=done' },
      payment_method_data: { type: 'bank_card' },
      description: 'Deposit dep_card1',
      metadata: { deposit_id: 'dep_card1', account_id: 'acc_7' },
    });
    const payment = driver.fake.payments.get(checkout.processorRef)!;
    expect(checkout).toEqual({
      processorRef: payment.id,
      checkoutUrl: (payment.confirmation as { confirmation_url: string }).confirmation_url,
      expiresAtMs: null,
    });
  });

  it('asks for SBP as payment_method_data.type sbp', async () => {
    await driver.create({ method: 'sbp', amountMinor: 1n });
    expect(driver.fake.requests[0]!.body).toMatchObject({
      amount: { value: '0.01', currency: 'RUB' },
      payment_method_data: { type: 'sbp' },
    });
    expect(driver.processor.methods).toEqual(['card', 'sbp']);
  });

  it('a retry of the same deposit answers the same payment; YooKassa made one', async () => {
    const first = await driver.create({ depositId: 'dep_retry', amountMinor: 10_000_000n });
    const again = await driver.create({ depositId: 'dep_retry', amountMinor: 10_000_000n });
    expect(again).toEqual(first);
    expect(driver.fake.payments.size).toBe(1);
    expect(driver.fake.requests.map((r) => r.idempotenceKey)).toEqual(['dep_retry', 'dep_retry']);
  });

  it('the same deposit id with another amount is refused by YooKassa and is our bug, not an outage', async () => {
    await driver.create({ depositId: 'dep_twice', amountMinor: 100n });
    const error = await failureOf(driver.create({ depositId: 'dep_twice', amountMinor: 200n }));
    expect(error).not.toBeInstanceOf(ProcessorUnavailable);
    expect(error.message).toMatch(/400 invalid_request: Idempotence key duplicated/);
    expect(driver.fake.payments.size).toBe(1);
  });

  it('takes rubles only, and never sends a non-positive amount', async () => {
    await expect(driver.create({ currency: 'usd' })).rejects.toThrow(RangeError);
    await expect(driver.create({ amountMinor: 0n })).rejects.toThrow(RangeError);
    expect(driver.fake.requests).toEqual([]);
  });

  it('wrong credentials are a configuration error carrying YooKassa’s code', async () => {
    const wrong = new YooKassaProcessor({
      shopId: driver.fake.shopId,
      secretKey: 'other',
      apiBase: driver.fake.apiBase,
    });
    const error = await failureOf(wrong.createCheckout({ ...baseRequest, depositId: 'dep_auth' }));
    expect(error).not.toBeInstanceOf(ProcessorUnavailable);
    expect(error.message).toMatch(/401 invalid_credentials/);
  });

  it.each([500, 502, 429, 202] as const)(
    'an answer %s is ProcessorUnavailable, and a retry then succeeds',
    async (status) => {
      driver.fake.failNext(status);
      await expect(driver.create({ depositId: 'dep_flaky' })).rejects.toBeInstanceOf(ProcessorUnavailable);
      const checkout = await driver.create({ depositId: 'dep_flaky' });
      expect(driver.fake.payments.has(checkout.processorRef)).toBe(true);
    },
  );

  it('a refused connection and an answer too slow are ProcessorUnavailable', async () => {
    const closed = new YooKassaProcessor({ shopId: 's', secretKey: 'k', apiBase: await closedPortBase() });
    await expect(closed.createCheckout(baseRequest)).rejects.toBeInstanceOf(ProcessorUnavailable);
    const silent = createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as AddressInfo).port;
    const slow = new YooKassaProcessor({
      shopId: 's',
      secretKey: 'k',
      apiBase: `http://127.0.0.1:${port}/v3`,
      budgetMs: 200,
    });
    await expect(slow.retrieve('2c0c9f4a-000f-5000-8000-1b9d5c6d0e41')).rejects.toBeInstanceOf(ProcessorUnavailable);
    silent.closeAllConnections();
    await new Promise((resolve) => silent.close(resolve));
  });

  it('refuses an apiBase that is not an http(s) URL at construction', () => {
    expect(() => new YooKassaProcessor({ shopId: 's', secretKey: 'k', apiBase: 'ftp://x' })).toThrow(/apiBase/);
  });
});

describe('retrieve: the payment as the API shows it', () => {
  it('pending until paid, then paid with the amount, our ids and itself as the charge refunds name', async () => {
    const { processorRef } = await driver.create({ depositId: 'dep_r1', accountId: 'acc_r1', amountMinor: 250_050n });
    const pending = { processorRef, amountMinor: 250_050n, currency: 'rub', depositId: 'dep_r1', accountId: 'acc_r1' };
    expect(await driver.processor.retrieve(processorRef)).toEqual({
      ...pending,
      status: 'pending',
      chargeRef: processorRef,
    });
    driver.fake.authorize(processorRef);
    expect(await driver.processor.retrieve(processorRef)).toMatchObject({ status: 'pending' });
    driver.fake.succeed(processorRef);
    expect(await driver.processor.retrieve(processorRef)).toEqual({
      ...pending,
      status: 'paid',
      chargeRef: processorRef,
    });
  });

  it('canceled is expired when never confirmed, failed for any other reason', async () => {
    const expired = await driver.create();
    const declined = await driver.create();
    await driver.expire(expired.processorRef);
    await driver.fail(declined.processorRef);
    expect(await driver.processor.retrieve(expired.processorRef)).toMatchObject({ status: 'expired' });
    expect(await driver.processor.retrieve(declined.processorRef)).toMatchObject({ status: 'failed' });
  });

  it('succeeded without paid: true credits nothing (pending)', async () => {
    const { processorRef } = await driver.create();
    driver.fake.succeed(processorRef);
    driver.fake.patch('payment', processorRef, { paid: false });
    expect(await driver.processor.retrieve(processorRef)).toMatchObject({ status: 'pending' });
  });

  it('reads the amount YooKassa writes with one decimal or none', async () => {
    const { processorRef } = await driver.create();
    driver.fake.patch('payment', processorRef, { amount: { value: '2.5', currency: 'RUB' } });
    expect(await driver.processor.retrieve(processorRef)).toMatchObject({ amountMinor: 250n });
    driver.fake.patch('payment', processorRef, { amount: { value: '1500', currency: 'RUB' } });
    expect(await driver.processor.retrieve(processorRef)).toMatchObject({ amountMinor: 150_000n });
  });

  it('a payment without our metadata has null ids', async () => {
    const { processorRef } = await driver.create();
    driver.fake.patch('payment', processorRef, { metadata: {} });
    expect(await driver.processor.retrieve(processorRef)).toMatchObject({ depositId: null, accountId: null });
  });

  it('an id the API does not know is null; an id with path characters stays one path segment', async () => {
    expect(await driver.processor.retrieve('2c0c9f4a-000f-5000-8000-1b9d5c6d0e41')).toBeNull();
    expect(await driver.processor.retrieve('../refunds/x')).toBeNull();
    expect(driver.fake.requests.at(-1)!.path).toBe('/v3/payments/..%2Frefunds%2Fx');
  });

  it.each([
    ['an unknown status', { status: 'refunding' }],
    ['an unreadable amount', { amount: { value: '12.345', currency: 'RUB' } }],
    ['a currency the port has no name for', { amount: { value: '12.00', currency: 'EUR' } }],
  ])('a payment with %s is ProcessorUnavailable: nothing moves on it', async (_what, fields) => {
    const { processorRef } = await driver.create();
    driver.fake.patch('payment', processorRef, fields);
    await expect(driver.processor.retrieve(processorRef)).rejects.toBeInstanceOf(ProcessorUnavailable);
  });

  it('a 5xx is ProcessorUnavailable', async () => {
    const { processorRef } = await driver.create();
    driver.fake.failNext(500);
    await expect(driver.processor.retrieve(processorRef)).rejects.toBeInstanceOf(ProcessorUnavailable);
  });
});

const baseRequest = {
  depositId: 'dep_base',
  accountId: 'acc_base',
  method: 'card',
  amountMinor: 100n,
  currency: 'rub',
  returnUrl: 'https://gateway.example.com/back',
} as const;

/** A loopback base URL nothing listens on (a port just freed). */
async function closedPortBase(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/v3`;
}

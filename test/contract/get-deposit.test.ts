import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { type PaymentsHarness, startPaymentsHarness } from '../setup/payments.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(() => h.close());

const get = (key: string, id: string) => call(h.baseUrl, 'GET', `/v1/payments/deposits/${id}`, { key });

describe('GET /v1/payments/deposits/{deposit_id}', () => {
  it('200: a pending deposit is checked with its processor, so a payment whose webhook was lost is credited', async () => {
    const { apiKey } = await h.newAccount();
    const deposit = await h.deposit(apiKey, { method: 'sbp', amount_rub: 160 });
    h.yookassa.succeed(h.lastYooKassaPayment());
    h.yookassa.outbox.queued.splice(0); // the notification never arrives
    const seen = expectNativeOk(await get(apiKey, deposit.deposit_id));
    expect(seen).toMatchObject({ status: 'credited', credited_usd: 2, amount_rub: 160 });
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd).toBe(2);
  });

  it('404 deposit_not_found: an unknown id, another account’s deposit', async () => {
    const { apiKey } = await h.newAccount();
    const other = await h.newAccount();
    const theirs = await h.deposit(other.apiKey, { method: 'sbp', amount_rub: 100 });
    expectNativeError(await get(apiKey, 'dep_unknown'), 404, 'deposit_not_found');
    expectNativeError(await get(apiKey, theirs.deposit_id), 404, 'deposit_not_found');
  });

  it('400 invalid_request: an id of another shape', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await get(apiKey, 'not-a-deposit'), 400, 'invalid_request');
  });

  it('401 without a key', async () => {
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/payments/deposits/dep_x'), 401, 'authentication_required');
  });
});

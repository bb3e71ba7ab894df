import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call } from '../setup/harness.js';
import { type PaymentsHarness, startPaymentsHarness } from '../setup/payments.js';

let h: PaymentsHarness;
beforeAll(async () => {
  h = await startPaymentsHarness();
});
afterAll(() => h.close());

const list = (key: string, query = '') => call(h.baseUrl, 'GET', `/v1/payments/deposits${query}`, { key });

describe('GET /v1/payments/deposits', () => {
  it('200: the account’s deposits newest first, paged; another account’s never', async () => {
    const { apiKey } = await h.newAccount();
    const other = await h.newAccount();
    await h.deposit(other.apiKey, { method: 'sbp', amount_rub: 100 });
    expect(expectNativeOk(await list(apiKey)).deposits).toEqual([]);
    const first = await h.deposit(apiKey, { method: 'sbp', amount_rub: 100 });
    const second = await h.deposit(apiKey, { method: 'sbp', amount_rub: 200 });
    const ids = (q: string) => list(apiKey, q).then((r) => expectNativeOk(r).deposits.map((d: any) => d.deposit_id));
    expect(await ids('')).toEqual([second.deposit_id, first.deposit_id]);
    expect(await ids('?limit=1&offset=1')).toEqual([first.deposit_id]);
  });

  it('400 invalid_request: a limit out of range', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await list(apiKey, '?limit=0'), 400, 'invalid_request');
  });

  it('401 without a key', async () => {
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/payments/deposits'), 401, 'authentication_required');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const getRubBilling = (key?: string) =>
  call(h.baseUrl, 'GET', '/v1/settings/rub-billing', key === undefined ? {} : { key });
const enable = (key: string) => call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key, body: { enabled: true } });
const getRecord = async (key: string, id: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/usage/requests/${id}`, { key })).request;

/** An account with two ruble top-ups, $10 at 90 then $10 at 100, and the ids of their lots in spending order. */
async function twoLots() {
  const account = await h.newAccount();
  const before = Date.now();
  await h.topUp(account.accountId, 10, 90);
  await h.topUp(account.accountId, 10, 100);
  const after = Date.now();
  const [first, second] = (await h.deps.ledger.listLots(account.accountId)).map((lot) => lot.id);
  return { ...account, first: first!, second: second!, before, after };
}

describe('GET /v1/settings/rub-billing', () => {
  it('200: off by default; a dollar top-up is a USD lot at the market rate', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const [lot] = await h.deps.ledger.listLots(accountId);
    const response = await getRubBilling(apiKey);
    expect(expectNativeOk(response)).toEqual({
      enabled: false,
      balance_usd: 10,
      balance_rub: 900,
      market_fx_rate_rub: 90,
      lots: [
        {
          id: lot!.id,
          currency: 'USD',
          created_at: new Date(lot!.createdAtMs).toISOString(),
          amount_usd: 10,
          remaining_usd: 10,
          fx_rate_rub: 90,
          remaining_rub: 900,
        },
      ],
    });
    expect(response.headers.get('x-ratelimit-remaining')).toBe('119');
  });

  it('200: lots in spending order; spend empties the first lot exactly before touching the second', async () => {
    const { apiKey, first, second, before, after } = await twoLots();
    const initial = expectNativeOk(await getRubBilling(apiKey));
    expect(initial).toMatchObject({ enabled: false, balance_usd: 20, balance_rub: 1900, market_fx_rate_rub: 90 });
    expect(initial.lots).toEqual([
      {
        id: first,
        currency: 'RUB',
        created_at: expect.any(String),
        amount_usd: 10,
        remaining_usd: 10,
        fx_rate_rub: 90,
        remaining_rub: 900,
      },
      {
        id: second,
        currency: 'RUB',
        created_at: expect.any(String),
        amount_usd: 10,
        remaining_usd: 10,
        fx_rate_rub: 100,
        remaining_rub: 1000,
      },
    ]);
    for (const lot of initial.lots) {
      expect(Date.parse(lot.created_at)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(lot.created_at)).toBeLessThanOrEqual(after);
    }

    expectNativeOk(await enable(apiKey));
    const four = await h.spend(apiKey, 4);
    expect(expectNativeOk(await getRubBilling(apiKey))).toMatchObject({
      enabled: true,
      balance_usd: 16,
      balance_rub: 1540,
      lots: [
        { id: first, amount_usd: 10, remaining_usd: 6, fx_rate_rub: 90, remaining_rub: 540 },
        { id: second, amount_usd: 10, remaining_usd: 10, fx_rate_rub: 100, remaining_rub: 1000 },
      ],
    });

    const six = await h.spend(apiKey, 6); // exactly what is left of the first lot
    const afterSix = expectNativeOk(await getRubBilling(apiKey));
    expect(afterSix).toMatchObject({ balance_usd: 10, balance_rub: 1000 });
    expect(afterSix.lots).toEqual([expect.objectContaining({ id: second, remaining_usd: 10, remaining_rub: 1000 })]);

    const one = await h.spend(apiKey, 1); // the second lot from its first cent
    expect(expectNativeOk(await getRubBilling(apiKey))).toMatchObject({
      balance_usd: 9,
      balance_rub: 900,
      lots: [{ id: second, remaining_usd: 9, fx_rate_rub: 100, remaining_rub: 900 }],
    });

    expect(await getRecord(apiKey, four.usageId)).toMatchObject({
      cost_usd: 4,
      cost_rub: 360,
      fx_rate_rub: 90,
      rub_pricing: 'billed',
    });
    expect(await getRecord(apiKey, six.usageId)).toMatchObject({
      cost_usd: 6,
      cost_rub: 540,
      fx_rate_rub: 90,
      rub_pricing: 'billed',
    });
    expect(await getRecord(apiKey, one.usageId)).toMatchObject({
      cost_usd: 1,
      cost_rub: 100,
      fx_rate_rub: 100,
      rub_pricing: 'billed',
    });
  });

  it('200: a charge that straddles two lots is priced part at each rate', async () => {
    const { apiKey, second } = await twoLots();
    expectNativeOk(await enable(apiKey));
    const charge = await h.spend(apiKey, 12);
    expect(expectNativeOk(await getRubBilling(apiKey))).toMatchObject({
      balance_usd: 8,
      balance_rub: 800,
      lots: [{ id: second, amount_usd: 10, remaining_usd: 8, fx_rate_rub: 100, remaining_rub: 800 }],
    });
    // 10 × 90 + 2 × 100 = 1100 RUB; effective rate 1100 / 12.
    expect(await getRecord(apiKey, charge.usageId)).toMatchObject({
      cost_usd: 12,
      cost_rub: 1100,
      fx_rate_rub: 91.666667,
      rub_pricing: 'billed',
    });
  });

  it('200: money held for a request in flight stays in the balance, in the lots and in balance_rub until it is charged', async () => {
    const { apiKey } = await twoLots();
    const principal = await h.deps.authenticator.authenticate(apiKey);
    const reservation = await h.deps.billing.reserve(principal, newId('req'), usdToMicros(3));
    const data = expectNativeOk(await getRubBilling(apiKey));
    expect(data).toMatchObject({ balance_usd: 20, balance_rub: 1900 });
    expect(data.lots.map((l: { remaining_usd: number }) => l.remaining_usd)).toEqual([10, 10]);
    await h.deps.billing.release(reservation);
    expect(expectNativeOk(await getRubBilling(apiKey))).toMatchObject({ balance_usd: 20, balance_rub: 1900 });
  });

  it('200: no lots and zero balance for an account never topped up', async () => {
    const { apiKey } = await h.newAccount();
    expect(expectNativeOk(await getRubBilling(apiKey))).toEqual({
      enabled: false,
      balance_usd: 0,
      balance_rub: 0,
      market_fx_rate_rub: 90,
      lots: [],
    });
  });

  it('400 invalid_request for a query parameter the operation does not take', async () => {
    const { apiKey } = await h.newAccount();
    const response = await call(h.baseUrl, 'GET', '/v1/settings/rub-billing?enabled=true', { key: apiKey });
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0].loc).toEqual(['query', 'enabled']);
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await getRubBilling(), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await getRubBilling(apiKey), 404, 'user_not_found');
  });

  it('503 billing_temporarily_unavailable when the ledger cannot be read, retryable', async () => {
    const broken = await startHarness({ API_KEY_CACHE_TTL_MS: '600000' });
    try {
      const { apiKey } = await broken.newAccount(undefined, { balanceUsd: 1 });
      expectNativeOk(await call(broken.baseUrl, 'GET', '/v1/settings/rub-billing', { key: apiKey })); // the key is now cached
      await broken.deps.db.knex.destroy();
      const response = await call(broken.baseUrl, 'GET', '/v1/settings/rub-billing', { key: apiKey });
      expectNativeError(response, 503, 'billing_temporarily_unavailable');
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

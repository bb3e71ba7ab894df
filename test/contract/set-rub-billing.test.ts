import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { sleep } from '../setup/time.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ BODY_LIMIT_BYTES: '2048' });
});
afterAll(() => h.close());

/** Lets the clock move on, so records written around it have distinct times (newest-first is by time). */
const tick = () => sleep(3);

const put = (key: string | undefined, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { ...(key === undefined ? {} : { key }), ...options });

const pricing = async (key: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key })).requests.map(
    (r: { cost_usd: number; cost_rub: number; fx_rate_rub: number; rub_pricing: string }) => [
      r.cost_usd,
      r.cost_rub,
      r.fx_rate_rub,
      r.rub_pricing,
    ],
  );

describe('PUT /v1/settings/rub-billing', () => {
  it('200: switching on prices later charges at the lot rates; earlier ones stay at market', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 90);
    await h.topUp(accountId, 10, 100);
    const [first, second] = (await h.deps.ledger.listLots(accountId)).map((lot) => lot.id);
    await h.spend(apiKey, 4); // before: consumes $4 of the 90 lot, priced at market
    await tick();

    const response = await put(apiKey, { body: { enabled: true } });
    const data = expectNativeOk(response);
    expect(response.body.message).toBe('Настройка сохранена');
    expect(data).toEqual({
      enabled: true,
      balance_usd: 16,
      balance_rub: 1540, // 6 × 90 + 10 × 100
      market_fx_rate_rub: 90,
      lots: [
        {
          id: first,
          currency: 'RUB',
          created_at: expect.any(String),
          amount_usd: 10,
          remaining_usd: 6,
          fx_rate_rub: 90,
          remaining_rub: 540,
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
      ],
    });
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey }))).toMatchObject({
      rub_billing: true,
      balance_rub: 1540,
    });

    await h.spend(apiKey, 8); // $6 at 90 + $2 at 100
    await tick();
    await h.spend(apiKey, 0.5); // at 100
    expect(await pricing(apiKey)).toEqual([
      [0.5, 50, 100, 'billed'],
      [8, 740, 92.5, 'billed'],
      [4, 360, 90, 'market'],
    ]);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/settings/rub-billing', { key: apiKey }))).toMatchObject({
      enabled: true,
      balance_usd: 7.5,
      balance_rub: 750,
      lots: [{ id: second, remaining_usd: 7.5, remaining_rub: 750 }],
    });
  });

  it('200: switching off again: later charges are market, billed ones keep their rubles; idempotent', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 100);
    expect(expectNativeOk(await put(apiKey, { body: { enabled: true } })).enabled).toBe(true);
    expect(expectNativeOk(await put(apiKey, { body: { enabled: true } })).enabled).toBe(true);
    await h.spend(apiKey, 1);
    await tick();
    const off = expectNativeOk(await put(apiKey, { body: { enabled: false } }));
    expect(off).toMatchObject({ enabled: false, balance_usd: 9, balance_rub: 900 });
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey }))).toMatchObject({
      rub_billing: false,
      balance_rub: null,
    });
    await h.spend(apiKey, 2);
    expect(await pricing(apiKey)).toEqual([
      [2, 180, 90, 'market'],
      [1, 100, 100, 'billed'],
    ]);
  });

  it('400 invalid_request with meta.fields: enabled missing, not a boolean, or an unknown field', async () => {
    const { apiKey } = await h.newAccount();
    const missing = await put(apiKey, { body: {} });
    expectNativeError(missing, 400, 'invalid_request');
    expect(missing.body.data.error).toMatch(/^body\.enabled: /);
    expect(missing.body.data.meta.fields[0]).toMatchObject({ type: 'required', loc: ['body', 'enabled'] });

    const yes = await put(apiKey, { body: { enabled: 'yes' } });
    expectNativeError(yes, 400, 'invalid_request');
    expect(yes.body.data.meta.fields[0]).toMatchObject({ type: 'type', loc: ['body', 'enabled'] });

    const extra = await put(apiKey, { body: { enabled: true, currency: 'RUB' } });
    expectNativeError(extra, 400, 'invalid_request');
    expect(extra.body.data.meta.fields[0].type).toBe('additionalProperties');

    const malformed = await put(apiKey, { rawBody: '{"enabled": ', headers: { 'content-type': 'application/json' } });
    expectNativeError(malformed, 400, 'invalid_request');

    // None of them changed anything.
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/settings/rub-billing', { key: apiKey })).enabled).toBe(
      false,
    );
  });

  it('401 authentication_required without a key, before the body is looked at', async () => {
    expectNativeError(await put(undefined, { body: { enabled: 'yes' } }), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await put(apiKey, { body: { enabled: true } }), 404, 'user_not_found');
  });

  it('413 request_too_large over the body cap', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(
      await put(apiKey, {
        rawBody: `{"enabled": true, "pad": "${'x'.repeat(4096)}"}`,
        headers: { 'content-type': 'application/json' },
      }),
      413,
      'request_too_large',
    );
  });

  it('415 unsupported_media_type for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(
      await put(apiKey, { rawBody: 'enabled=true', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });

  it('503 billing_temporarily_unavailable when the ledger cannot be read for the answer, retryable', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const original = h.deps.ledger.listLots;
    h.deps.ledger.listLots = () => Promise.reject(new Error('ledger down'));
    try {
      const response = await put(apiKey, { body: { enabled: true } });
      expectNativeError(response, 503, 'billing_temporarily_unavailable');
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      h.deps.ledger.listLots = original;
    }
    expect((await h.deps.apiKeys.getAccount(accountId))?.rubBilling).toBe(true); // the switch itself was saved
  });

  it('503 (retryable) when the database is gone, not 500', async () => {
    const broken = await startHarness({ API_KEY_CACHE_TTL_MS: '600000' });
    try {
      const { apiKey } = await broken.newAccount(undefined, { balanceUsd: 1 });
      expectNativeOk(await call(broken.baseUrl, 'GET', '/v1/settings/rub-billing', { key: apiKey })); // the key is now cached
      await broken.deps.db.knex.destroy();
      const response = await call(broken.baseUrl, 'PUT', '/v1/settings/rub-billing', {
        key: apiKey,
        body: { enabled: true },
      });
      expect(response.status, response.text).toBe(503);
      expect(['billing_temporarily_unavailable', 'not_ready']).toContain(response.body.data.error_code);
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const getAccount = (key?: string) => call(h.baseUrl, 'GET', '/v1/account', key === undefined ? {} : { key });

describe('GET /v1/account', () => {
  it('200: the balance after top-ups and spend, default limits and discounts, X-RateLimit-* headers', async () => {
    const email = `acct-${Date.now()}@example.com`;
    const { accountId, apiKey } = await h.newAccount(email, { balanceUsd: 10 });
    await h.topUp(accountId, 5.5);
    await h.spend(apiKey, 1.234567);
    await h.spend(apiKey, 0.25, {}, 2); // held 2, settled 0.25: the rest goes back
    await h.spend(apiKey, 0.5, {}, 0.3); // over the hold: capped at it, the extra 0.2 is the platform's loss
    const response = await getAccount(apiKey);
    const data = expectNativeOk(response);
    expect(data).toEqual({
      account_id: accountId,
      email,
      balance_usd: 13.715433, // 15.5 − 1.234567 − 0.25 − 0.3
      held_usd: 0,
      rub_billing: false,
      balance_rub: null,
      limits: { requests_per_minute_per_key: 120, requests_per_minute_per_account: 600 },
      discounts: { discount_percent: 0, tier_discounts: {} },
      sign_in: null,
    });
    // SPEC 7.1.4: a key-authenticated success carries the window with the least room (the key's, 120).
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('119');
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    expect(Number.isInteger(reset)).toBe(true);
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
  });

  it('200: money reserved by a request in flight is held within the balance, and only what it cost leaves it', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const principal = await h.deps.authenticator.authenticate(apiKey);
    const reservation = await h.deps.billing.reserve(principal, newId('req'), usdToMicros(2.5));
    expect(expectNativeOk(await getAccount(apiKey))).toMatchObject({ balance_usd: 10, held_usd: 2.5 });
    await h.deps.billing.settle(reservation, usdToMicros(1.25), {
      model: 'gpt-5-mini',
      kind: 'chat',
      endpoint: '/v1/compat/chat/completions',
    });
    expect(expectNativeOk(await getAccount(apiKey))).toMatchObject({ balance_usd: 8.75, held_usd: 0 });
  });

  it('200: per-key and per-account limit overrides are shown', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount();
    await h.deps.apiKeys.setKeyRateLimit(keyId, 30);
    await h.deps.apiKeys.updateAccountSettings(accountId, { rateLimitPerMinute: 1000 });
    h.deps.authenticator.invalidate({ accountId });
    const response = await getAccount(apiKey);
    expect(expectNativeOk(response).limits).toEqual({
      requests_per_minute_per_key: 30,
      requests_per_minute_per_account: 1000,
    });
    expect(response.headers.get('x-ratelimit-limit')).toBe('30');
    expect(response.headers.get('x-ratelimit-remaining')).toBe('29');
  });

  it('200: balance_rub is each lot valued at its own rate once ruble billing is on', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 90);
    await h.topUp(accountId, 10, 100);
    await h.deps.apiKeys.updateAccountSettings(accountId, { rubBilling: true });
    h.deps.authenticator.invalidate({ accountId });
    expect(expectNativeOk(await getAccount(apiKey))).toMatchObject({
      rub_billing: true,
      balance_usd: 20,
      held_usd: 0,
      balance_rub: 1900,
    });

    // A hold stays in the balance (and in rubles) until it is charged.
    const principal = await h.deps.authenticator.authenticate(apiKey);
    const reservation = await h.deps.billing.reserve(principal, newId('req'), usdToMicros(3));
    expect(expectNativeOk(await getAccount(apiKey))).toMatchObject({ balance_usd: 20, held_usd: 3, balance_rub: 1900 });
    await h.deps.billing.release(reservation);

    // $12 empties the first lot ($10 at 90) and takes $2 of the second: 8 × 100 left.
    await h.spend(apiKey, 12);
    expect(expectNativeOk(await getAccount(apiKey))).toMatchObject({ balance_usd: 8, held_usd: 0, balance_rub: 800 });
  });

  it('200: balance_rub is null while ruble billing is off, even with ruble top-ups', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 95);
    expect(expectNativeOk(await getAccount(apiKey))).toMatchObject({
      rub_billing: false,
      balance_usd: 10,
      balance_rub: null,
    });
  });

  it('400 invalid_request for a query parameter the operation does not take', async () => {
    const { apiKey } = await h.newAccount();
    const response = await call(h.baseUrl, 'GET', '/v1/account?verbose=1', { key: apiKey });
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0].loc).toEqual(['query', 'verbose']);
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await getAccount(), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await getAccount(apiKey), 404, 'user_not_found');
  });

  it('429 rate_limit_per_key past the key’s own limit, with Retry-After and X-RateLimit-*', async () => {
    const { apiKey, keyId } = await h.newAccount();
    await h.deps.apiKeys.setKeyRateLimit(keyId, 2);
    const first = await getAccount(apiKey);
    expectNativeOk(first);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    expectNativeOk(await getAccount(apiKey));
    const limited = await getAccount(apiKey);
    expectNativeError(limited, 429, 'rate_limit_per_key');
    expect(limited.headers.get('x-should-retry')).toBe('true');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('2');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const reset = Number(limited.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThanOrEqual(1);
    expect(reset).toBeLessThanOrEqual(60);
  });

  it('429 rate_limit_per_user when the account’s keys together pass the account limit (SPEC 8)', async () => {
    const { apiKey, accountId } = await h.newAccount();
    const second = await issueKey(h.deps.apiKeys, accountId, 'second');
    await h.deps.apiKeys.updateAccountSettings(accountId, { rateLimitPerMinute: 3 });
    h.deps.authenticator.invalidate({ accountId });
    expectNativeOk(await getAccount(apiKey));
    expectNativeOk(await getAccount(second.secret));
    const third = await getAccount(apiKey);
    expectNativeOk(third);
    expect(third.headers.get('x-ratelimit-limit')).toBe('3'); // the account window has the least room left
    expect(third.headers.get('x-ratelimit-remaining')).toBe('0');
    const limited = await getAccount(second.secret);
    expectNativeError(limited, 429, 'rate_limit_per_user');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('503 billing_temporarily_unavailable when the ledger cannot be read, retryable', async () => {
    const broken = await startHarness({ API_KEY_CACHE_TTL_MS: '600000' });
    try {
      const { apiKey } = await broken.newAccount(undefined, { balanceUsd: 1 });
      expectNativeOk(await call(broken.baseUrl, 'GET', '/v1/account', { key: apiKey })); // the key is now cached
      await broken.deps.db.knex.destroy();
      const response = await call(broken.baseUrl, 'GET', '/v1/account', { key: apiKey });
      expectNativeError(response, 503, 'billing_temporarily_unavailable');
      expect(response.headers.get('x-should-retry')).toBe('true');
    } finally {
      await broken.close().catch(() => undefined);
    }
  });
});

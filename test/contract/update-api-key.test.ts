import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
// Monday 2026-03-16 12:00 UTC: the week began this midnight, the month on the 1st.
const clock = { now: Date.parse('2026-03-16T12:00:00.000Z') };
beforeAll(async () => {
  // A long cache on purpose: a change through the API must take effect in this process at once anyway.
  h = await startHarness(
    { API_KEY_CACHE_TTL_MS: '600000', RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '500' },
    {
      now: () => clock.now,
    },
  );
});
afterAll(() => h.close());

const update = (key: string, keyId: string, body: unknown) =>
  call(h.baseUrl, 'PATCH', `/v1/llm/api-keys/${keyId}`, { key, body });

describe('PATCH /v1/llm/api-keys/{key_id}', () => {
  it('200: renames, sets a rate and a spend limit, shows what is left and when it resets; null clears them', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const other = await issueKey(h.deps.apiKeys, accountId, 'app', () => clock.now, { managesKeys: false });
    const body = { name: 'team-bot', rate_limit_per_minute: 120, spend_limit: { amount_usd: 12.5, period: 'week' } };
    const set = expectNativeOk(await update(apiKey, other.record.id, body)).key;
    expect(set).toMatchObject({
      id: other.record.id,
      name: 'team-bot',
      rate_limit_per_minute: 120,
      spend_limit: { amount_usd: 12.5, period: 'week' },
      spend_limit_remaining_usd: 12.5,
      spend_limit_resets_at: '2026-03-23T00:00:00.000Z',
    });
    const listed = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/api-keys', { key: apiKey })).keys;
    expect(listed.find((k: { id: string }) => k.id === other.record.id)).toEqual(set);
    // Absent fields stay as they are.
    const renamed = expectNativeOk(await update(apiKey, other.record.id, { name: 'bot' })).key;
    expect(renamed).toMatchObject({ name: 'bot', rate_limit_per_minute: 120, spend_limit: { amount_usd: 12.5 } });
    const cleared = expectNativeOk(
      await update(apiKey, other.record.id, { rate_limit_per_minute: null, spend_limit: null }),
    ).key;
    expect(cleared).toMatchObject({
      rate_limit_per_minute: null,
      spend_limit: null,
      spend_limit_remaining_usd: null,
      spend_limit_resets_at: null,
    });
    expect((await h.deps.apiKeys.getKey(other.record.id))?.spendLimit).toBeNull();
  });

  it('the new rate limit applies at once in this process: the second request within the minute is refused', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const other = await issueKey(h.deps.apiKeys, accountId, 'app', () => clock.now, { managesKeys: false });
    expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: other.secret })); // cached with no limit
    expectNativeOk(await update(apiKey, other.record.id, { rate_limit_per_minute: 1 }));
    await call(h.baseUrl, 'GET', '/v1/account', { key: other.secret });
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/account', { key: other.secret }), 429, 'rate_limit_per_key');
  });

  it('400 key_rate_limit_above_account: a key may not go past the account’s own per-minute limit', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount();
    const response = await update(apiKey, keyId, { rate_limit_per_minute: 501 });
    expectNativeError(response, 400, 'key_rate_limit_above_account');
    expect(response.body.data.meta.account_rate_limit_per_minute).toBe(500);
    expectNativeOk(await update(apiKey, keyId, { rate_limit_per_minute: 500 }));
    // An account bumped above the default lets its keys follow (SPEC 8 "bumpable").
    await h.deps.apiKeys.updateAccountSettings(accountId, { rateLimitPerMinute: 2000 });
    h.deps.authenticator.invalidate({ accountId });
    expectNativeOk(await update(apiKey, keyId, { rate_limit_per_minute: 2000 }));
    expectNativeError(
      await update(apiKey, keyId, { rate_limit_per_minute: 2001 }),
      400,
      'key_rate_limit_above_account',
    );
  });

  it('400 invalid_spend_limit for more than 6 decimals; 400 invalid_request for a bad period or a zero amount', async () => {
    const { apiKey, keyId } = await h.newAccount();
    expectNativeError(
      await update(apiKey, keyId, { spend_limit: { amount_usd: 1.0000001, period: 'day' } }),
      400,
      'invalid_spend_limit',
    );
    expectNativeError(
      await update(apiKey, keyId, { spend_limit: { amount_usd: 5, period: 'year' } }),
      400,
      'invalid_request',
    );
    expectNativeError(
      await update(apiKey, keyId, { spend_limit: { amount_usd: 0, period: 'day' } }),
      400,
      'invalid_request',
    );
    expectNativeOk(await update(apiKey, keyId, { spend_limit: { amount_usd: 0.000001, period: 'day' } }));
  });

  it('403 key_scope_required for a key without the keys scope, even on itself', async () => {
    const { accountId } = await h.newAccount();
    const plain = await issueKey(h.deps.apiKeys, accountId, 'app', () => clock.now, { managesKeys: false });
    expectNativeError(await update(plain.secret, plain.record.id, { spend_limit: null }), 403, 'key_scope_required');
  });

  it('404 api_key_not_found for another account’s key or an unknown id, which stays as it was', async () => {
    const mine = await h.newAccount();
    const theirs = await h.newAccount();
    expectNativeError(await update(mine.apiKey, theirs.keyId, { name: 'taken' }), 404, 'api_key_not_found');
    expectNativeError(await update(mine.apiKey, 'key_doesnotexist', { name: 'x' }), 404, 'api_key_not_found');
    expect((await h.deps.apiKeys.getKey(theirs.keyId))?.name).toBe('default');
  });
});

describe('POST /v1/llm/api-keys with limits', () => {
  it('201: the new key carries its rate and spend limits; 400 past the account’s limit', async () => {
    const { apiKey } = await h.newAccount();
    const body = { name: 'ci', rate_limit_per_minute: 30, spend_limit: { amount_usd: 3, period: 'month' } };
    const created = expectNativeOk(await call(h.baseUrl, 'POST', '/v1/llm/api-keys', { key: apiKey, body }), 201);
    expect(created.key).toMatchObject({
      rate_limit_per_minute: 30,
      spend_limit: { amount_usd: 3, period: 'month' },
      spend_limit_remaining_usd: 3,
      spend_limit_resets_at: '2026-04-01T00:00:00.000Z',
    });
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/llm/api-keys', { key: apiKey, body: { rate_limit_per_minute: 100_000 } }),
      400,
      'key_rate_limit_above_account',
    );
  });
});

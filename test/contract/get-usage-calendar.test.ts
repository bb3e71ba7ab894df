import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const today = () => new Date().toISOString().slice(0, 10);

const calendar = (key: string | undefined, query = '') =>
  call(h.baseUrl, 'GET', `/v1/usage/calendar${query}`, key === undefined ? {} : { key });

describe('GET /v1/usage/calendar', () => {
  it('200: the current UTC year by default, only days that had usage, with their sums', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.newAccount(undefined, { balanceUsd: 5 }).then((o) => h.spend(o.apiKey, 2)); // not ours
    await h.spend(apiKey, 0.75, { promptTokens: 30, completionTokens: 12 });
    await h.spend(apiKey, 0.000001, {
      kind: 'embedding',
      model: 'text-embedding-3-small',
      endpoint: '/v1/compat/embeddings',
      promptTokens: 3,
    });
    const data = expectNativeOk(await calendar(apiKey));
    expect(data).toEqual({
      year: new Date().getUTCFullYear(),
      days: [
        { date: today(), requests: 2, prompt_tokens: 33, completion_tokens: 12, total_tokens: 45, cost_usd: 0.750001 },
      ],
    });
  });

  it('200: an explicit year without usage has no days', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    await h.spend(apiKey, 0.1);
    expect(expectNativeOk(await calendar(apiKey, '?year=2020'))).toEqual({ year: 2020, days: [] });
  });

  it('200: cost_rub twins for a ruble-billed account', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 5, 95);
    expectNativeOk(await call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key: apiKey, body: { enabled: true } }));
    await h.spend(apiKey, 2);
    const year = new Date().getUTCFullYear();
    expect(expectNativeOk(await calendar(apiKey, `?year=${year}`)).days).toEqual([
      {
        date: today(),
        requests: 1,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        cost_usd: 2,
        cost_rub: 190,
      },
    ]);
  });

  it('400 invalid_request with meta.fields for year=1999 and a year that is not a number', async () => {
    const { apiKey } = await h.newAccount();
    const early = await calendar(apiKey, '?year=1999');
    expectNativeError(early, 400, 'invalid_request');
    expect(early.body.data.meta.fields[0]).toMatchObject({ type: 'minimum', loc: ['query', 'year'] });
    const word = await calendar(apiKey, '?year=last');
    expectNativeError(word, 400, 'invalid_request');
    expect(word.body.data.meta.fields[0]).toMatchObject({ type: 'type', loc: ['query', 'year'] });
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await calendar(undefined), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await calendar(apiKey), 404, 'user_not_found');
  });
});

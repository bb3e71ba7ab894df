import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const DAY_MS = 86_400_000;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const today = () => day(Date.now());
const shift = (d: string, days: number) => day(Date.parse(`${d}T00:00:00Z`) + days * DAY_MS);
/** The Monday (UTC) of the ISO week of `d`. */
const mondayOf = (d: string) => shift(d, -((new Date(`${d}T00:00:00Z`).getUTCDay() + 6) % 7));

const breakdown = (key: string | undefined, query = '') =>
  call(h.baseUrl, 'GET', `/v1/llm/usage/breakdown${query}`, key === undefined ? {} : { key });

describe('GET /v1/llm/usage/breakdown', () => {
  it('200: daily and weekly sums per model over the default 30 days, no cost_rub for a dollar account', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.newAccount(undefined, { balanceUsd: 5 }).then((o) => h.spend(o.apiKey, 1, { model: 'gpt-5-mini' })); // not ours
    await h.spend(apiKey, 0.25, { model: 'gpt-5-mini', promptTokens: 100, completionTokens: 50 });
    await h.spend(apiKey, 0.500001, { model: 'gpt-5-mini', promptTokens: 10, completionTokens: 5 });
    await h.spend(apiKey, 1.2, { model: 'claude-sonnet-4', promptTokens: 7, completionTokens: 3 });
    await h.spend(apiKey, 0.03, {
      model: 'claude-sonnet-4',
      kind: 'embedding',
      endpoint: '/v1/compat/embeddings',
      promptTokens: 4,
    });

    const data = expectNativeOk(await breakdown(apiKey));
    const t = today();
    expect(data.to).toBe(t);
    expect(data.from).toBe(shift(t, -29));
    const claude = {
      model: 'claude-sonnet-4',
      requests: 2,
      prompt_tokens: 11,
      completion_tokens: 3,
      total_tokens: 14,
      cost_usd: 1.23,
    };
    const gpt = {
      model: 'gpt-5-mini',
      requests: 2,
      prompt_tokens: 110,
      completion_tokens: 55,
      total_tokens: 165,
      cost_usd: 0.750001,
    };
    expect(data.daily).toEqual([
      { date: t, ...claude },
      { date: t, ...gpt },
    ]);
    expect(data.weekly).toEqual([
      { week_start: mondayOf(t), ...claude },
      { week_start: mondayOf(t), ...gpt },
    ]);
  });

  it('200: cost_rub twins once ruble billing is on (exact for billed charges, market rate for earlier ones)', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 100);
    await h.spend(apiKey, 1, { model: 'gpt-5-mini' }); // before the switch: 1 × 90
    expectNativeOk(await call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key: apiKey, body: { enabled: true } }));
    await h.spend(apiKey, 2, { model: 'gpt-5-mini' }); // billed: 2 × 100
    await h.spend(apiKey, 0.5, { model: 'claude-sonnet-4' }); // billed: 0.5 × 100
    const t = today();
    const data = expectNativeOk(await breakdown(apiKey, `?from=${t}&to=${t}`));
    expect(data).toMatchObject({ from: t, to: t });
    expect(data.daily).toEqual([
      {
        date: t,
        model: 'claude-sonnet-4',
        requests: 1,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        cost_usd: 0.5,
        cost_rub: 50,
      },
      {
        date: t,
        model: 'gpt-5-mini',
        requests: 2,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        cost_usd: 3,
        cost_rub: 290,
      },
    ]);
    expect(data.weekly.map((w: { model: string; cost_rub: number }) => [w.model, w.cost_rub])).toEqual([
      ['claude-sonnet-4', 50],
      ['gpt-5-mini', 290],
    ]);
  });

  it('200: by_key=true adds each key’s totals over the days, ordered by key id; absent without it (issue 26)', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const second = await issueKey(h.deps.apiKeys, accountId, 'second');
    await h.spend(apiKey, 0.25, { promptTokens: 100, completionTokens: 50 });
    await h.spend(apiKey, 0.5, { promptTokens: 1, completionTokens: 1 });
    await h.spend(second.secret, 0.125, { promptTokens: 4, completionTokens: 0 });
    const expected = [
      { key_id: keyId, requests: 2, prompt_tokens: 101, completion_tokens: 51, total_tokens: 152, cost_usd: 0.75 },
      {
        key_id: second.record.id,
        requests: 1,
        prompt_tokens: 4,
        completion_tokens: 0,
        total_tokens: 4,
        cost_usd: 0.125,
      },
    ].sort((a, b) => (a.key_id < b.key_id ? -1 : 1));
    expect(expectNativeOk(await breakdown(apiKey, '?by_key=true')).by_key).toEqual(expected);
    expect(expectNativeOk(await breakdown(apiKey)).by_key).toBeUndefined();
    expect(expectNativeOk(await breakdown(apiKey, '?by_key=true&from=2024-01-01&to=2024-01-31')).by_key).toEqual([]);
  });

  it('200: a range without usage is empty; a 366-day range is allowed', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    await h.spend(apiKey, 0.1);
    expect(expectNativeOk(await breakdown(apiKey, '?from=2024-01-01&to=2024-12-31'))).toEqual({
      from: '2024-01-01',
      to: '2024-12-31',
      daily: [],
      weekly: [],
    });
    // `to` alone: `from` is 29 days before it.
    expect(expectNativeOk(await breakdown(apiKey, '?to=2024-03-01'))).toMatchObject({
      from: '2024-02-01',
      to: '2024-03-01',
    });
  });

  it('400 invalid_request when from is after to, for a range over 366 days, and for a malformed date', async () => {
    const { apiKey } = await h.newAccount();
    const reversed = await breakdown(apiKey, '?from=2025-02-02&to=2025-02-01');
    expectNativeError(reversed, 400, 'invalid_request');
    expect(reversed.body.data.error).toMatch(/^query\.from: /);

    const tooLong = await breakdown(apiKey, '?from=2024-01-01&to=2025-01-02'); // 368 days
    expectNativeError(tooLong, 400, 'invalid_request');
    expect(tooLong.body.data.error).toMatch(/^query\.to: /);

    const malformed = await breakdown(apiKey, '?from=2025-1-01');
    expectNativeError(malformed, 400, 'invalid_request');
    expect(malformed.body.data.meta.fields[0]).toMatchObject({ type: 'format', loc: ['query', 'from'] });
  });

  it('400 invalid_request with meta.fields for a date that does not exist', async () => {
    const { apiKey } = await h.newAccount();
    for (const query of ['?to=2025-19-39', '?from=2025-13-01', '?from=2025-02-30&to=2025-03-01']) {
      const response = await breakdown(apiKey, query);
      expectNativeError(response, 400, 'invalid_request');
      expect(response.body.data.meta.fields[0]).toMatchObject({
        type: 'format',
        loc: ['query', query.slice(1, query.indexOf('='))],
      });
    }
  });

  it('400 for from after to lists the field in meta.fields', async () => {
    const { apiKey } = await h.newAccount();
    const reversed = await breakdown(apiKey, '?from=2025-02-02&to=2025-02-01');
    expectNativeError(reversed, 400, 'invalid_request');
    expect(reversed.body.data.meta.fields).toEqual([expect.objectContaining({ loc: ['query', 'from'] })]);
  });

  it('200 for to exactly 366 days after from, as the ToDate parameter documents', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeOk(await breakdown(apiKey, '?from=2024-01-01&to=2025-01-01'));
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await breakdown(undefined), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await breakdown(apiKey), 404, 'user_not_found');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
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
const ZERO = { requests: 0, prompt_tokens: 0, completion_tokens: 0, total_tokens: 0, cost_usd: 0 };

const activity = (key: string | undefined, query = '') =>
  call(h.baseUrl, 'GET', `/v1/usage/activity${query}`, key === undefined ? {} : { key });

describe('GET /v1/usage/activity', () => {
  it('200: days=7 gives seven days ending today, zeros included, sums by kind and totals', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.newAccount(undefined, { balanceUsd: 5 }).then((o) => h.spend(o.apiKey, 2)); // not ours
    await h.spend(apiKey, 0.2, { promptTokens: 100, completionTokens: 40 });
    await h.spend(apiKey, 0.300002, { model: 'claude-sonnet-4', promptTokens: 10, completionTokens: 5 });
    await h.spend(apiKey, 0.000123, {
      kind: 'embedding',
      model: 'text-embedding-3-small',
      endpoint: '/v1/compat/embeddings',
      promptTokens: 64,
    });

    const data = expectNativeOk(await activity(apiKey, '?days=7'));
    const t = today();
    expect(data.to).toBe(t);
    expect(data.from).toBe(shift(t, -6));
    const chat = { requests: 2, prompt_tokens: 110, completion_tokens: 45, total_tokens: 155, cost_usd: 0.500002 };
    const embedding = { requests: 1, prompt_tokens: 64, completion_tokens: 0, total_tokens: 64, cost_usd: 0.000123 };
    const total = { requests: 3, prompt_tokens: 174, completion_tokens: 45, total_tokens: 219, cost_usd: 0.500125 };
    expect(data.days).toEqual([
      ...[-6, -5, -4, -3, -2, -1].map((n) => ({ date: shift(t, n), ...ZERO })),
      { date: t, ...total },
    ]);
    expect(data.by_kind).toHaveLength(2);
    expect(data.by_kind).toEqual(
      expect.arrayContaining([
        { kind: 'chat', ...chat },
        { kind: 'embedding', ...embedding },
      ]),
    );
    expect(data.totals).toEqual(total);
  });

  it('200: 30 days by default; an account without usage has zeros and no kinds', async () => {
    const { apiKey } = await h.newAccount();
    const data = expectNativeOk(await activity(apiKey));
    expect(data.days).toHaveLength(30);
    expect(data.from).toBe(shift(today(), -29));
    expect(
      data.days.every((d: Record<string, unknown>) => d.requests === 0 && d.cost_usd === 0 && !('cost_rub' in d)),
    ).toBe(true);
    expect(data.by_kind).toEqual([]);
    expect(data.totals).toEqual(ZERO);
  });

  it('200: cost_rub twins for a ruble-billed account, zeros included', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 100);
    await h.spend(apiKey, 1); // before the switch: market, 90
    expectNativeOk(await call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key: apiKey, body: { enabled: true } }));
    await h.spend(apiKey, 0.5, { kind: 'rerank', model: 'rerank-v3', endpoint: '/v1/compat/rerank' }); // billed at 100
    const data = expectNativeOk(await activity(apiKey, '?days=2'));
    expect(data.days).toEqual([
      { date: shift(today(), -1), ...ZERO, cost_rub: 0 },
      {
        date: today(),
        requests: 2,
        prompt_tokens: 0,
        completion_tokens: 0,
        total_tokens: 0,
        cost_usd: 1.5,
        cost_rub: 140,
      },
    ]);
    expect(data.by_kind).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'chat', cost_usd: 1, cost_rub: 90 }),
        expect.objectContaining({ kind: 'rerank', cost_usd: 0.5, cost_rub: 50 }),
      ]),
    );
    expect(data.totals).toMatchObject({ cost_usd: 1.5, cost_rub: 140 });
  });

  it('400 invalid_request with meta.fields for days=0 and days=367', async () => {
    const { apiKey } = await h.newAccount();
    const zero = await activity(apiKey, '?days=0');
    expectNativeError(zero, 400, 'invalid_request');
    expect(zero.body.data.meta.fields[0]).toMatchObject({ type: 'minimum', loc: ['query', 'days'] });
    const tooMany = await activity(apiKey, '?days=367');
    expectNativeError(tooMany, 400, 'invalid_request');
    expect(tooMany.body.data.meta.fields[0]).toMatchObject({ type: 'maximum', loc: ['query', 'days'] });
    expect(expectNativeOk(await activity(apiKey, '?days=366')).days).toHaveLength(366);
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await activity(undefined), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await activity(apiKey), 404, 'user_not_found');
  });
});

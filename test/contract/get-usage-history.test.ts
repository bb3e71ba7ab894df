import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import { microsToUsd, usdToMicros } from '../../src/domain/billing/money.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { sleep } from '../setup/time.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

/** Lets the clock move on, so records written around it have distinct times (newest-first is by time). */
const tick = () => sleep(3);

const history = (key: string | undefined, query = '') =>
  call(h.baseUrl, 'GET', `/v1/llm/usage/history${query}`, key === undefined ? {} : { key });

describe('GET /v1/llm/usage/history', () => {
  it('200: logs newest first and totals that match the ledger to the micro-dollar', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 20 });
    await h.newAccount(undefined, { balanceUsd: 5 }).then((o) => h.spend(o.apiKey, 3)); // someone else's spend
    const spends: [number, number?][] = [[0.123456], [1.5, 4], [0.5, 0.3], [0.000001]]; // [cost, hold]; 0.5 on 0.3 is capped at 0.3
    const usageIds: string[] = [];
    for (const [i, [cost, hold]] of spends.entries()) {
      const charge = await h.spend(apiKey, cost, { promptTokens: 10 * (i + 1), completionTokens: i }, hold);
      usageIds.push(charge.usageId);
      await tick();
    }
    const data = expectNativeOk(await history(apiKey));
    expect(data.logs.map((l: { id: string }) => l.id)).toEqual([...usageIds].reverse());
    expect(data.logs.map((l: { cost_usd: number }) => l.cost_usd)).toEqual([0.000001, 0.3, 1.5, 0.123456]);

    const sumMicros = spends.reduce((sum, [cost, hold]) => sum + usdToMicros(Math.min(cost, hold ?? cost)), 0n);
    expect(data.total_cost_usd).toBe(microsToUsd(sumMicros));
    expect(data.total_cost_usd).toBe(1.923457);
    expect(data.total_cost_usd).toBe(microsToUsd(await h.deps.ledger.postedSpend(accountId)));
    expect(data.total_cost_rub).toBe(173.11113); // dollar-billed: 1.923457 × 90
    expect(data).toMatchObject({
      total_requests: 4,
      total_tokens: 10 + 21 + 32 + 43,
      limit: 50,
      offset: 0,
      has_more: false,
    });
  });

  it('200: limit and offset page the logs; the totals stay over all usage', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const usageIds: string[] = [];
    for (const cost of [0.1, 0.2, 0.3]) {
      usageIds.push((await h.spend(apiKey, cost)).usageId);
      await tick();
    }
    const page = expectNativeOk(await history(apiKey, '?limit=2&offset=1'));
    expect(page.logs.map((l: { id: string }) => l.id)).toEqual([usageIds[1], usageIds[0]]);
    expect(page).toMatchObject({
      limit: 2,
      offset: 1,
      has_more: false,
      total_requests: 3,
      total_cost_usd: 0.6,
      total_cost_rub: 54,
    });
    const first = expectNativeOk(await history(apiKey, '?limit=1'));
    expect(first.logs.map((l: { id: string }) => l.id)).toEqual([usageIds[2]]);
    expect(first.has_more).toBe(true);
  });

  it('200: total_cost_rub is exact for ruble-billed charges and today’s rate for the earlier ones', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 100);
    await h.spend(apiKey, 1); // before the switch: market, 90
    await tick();
    expectNativeOk(await call(h.baseUrl, 'PUT', '/v1/settings/rub-billing', { key: apiKey, body: { enabled: true } }));
    await h.spend(apiKey, 2); // billed at the lot's 100
    const data = expectNativeOk(await history(apiKey));
    expect(data.logs.map((l: { rub_pricing: string; cost_rub: number }) => [l.rub_pricing, l.cost_rub])).toEqual([
      ['billed', 200],
      ['market', 90],
    ]);
    expect(data).toMatchObject({ total_cost_usd: 3, total_cost_rub: 290 });
  });

  it('200: key_id gives the logs and totals of that key alone (issue 26)', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const second = await issueKey(h.deps.apiKeys, accountId, 'second');
    await h.spend(apiKey, 0.25, { promptTokens: 3 });
    const theirs = await h.spend(second.secret, 1.000001, { promptTokens: 5 });
    const data = expectNativeOk(await history(apiKey, `?key_id=${second.record.id}`));
    expect(data.logs.map((l: { id: string }) => l.id)).toEqual([theirs.usageId]);
    expect(data).toMatchObject({ total_requests: 1, total_tokens: 5, total_cost_usd: 1.000001 });
    expect(expectNativeOk(await history(apiKey, `?key_id=${keyId}`)).total_cost_usd).toBe(0.25);
    expect(expectNativeOk(await history(apiKey)).total_cost_usd).toBe(1.250001);
  });

  it('200: an account without usage has zero totals', async () => {
    const { apiKey } = await h.newAccount();
    expect(expectNativeOk(await history(apiKey))).toEqual({
      logs: [],
      total_requests: 0,
      total_tokens: 0,
      total_cost_usd: 0,
      total_cost_rub: 0,
      limit: 50,
      offset: 0,
      has_more: false,
    });
  });

  it('400 invalid_request with meta.fields for limit=0 and a negative offset', async () => {
    const { apiKey } = await h.newAccount();
    const zero = await history(apiKey, '?limit=0');
    expectNativeError(zero, 400, 'invalid_request');
    expect(zero.body.data.meta.fields[0]).toMatchObject({ type: 'minimum', loc: ['query', 'limit'] });
    const negative = await history(apiKey, '?offset=-1');
    expectNativeError(negative, 400, 'invalid_request');
    expect(negative.body.data.meta.fields[0]).toMatchObject({ type: 'minimum', loc: ['query', 'offset'] });
    const notANumber = await history(apiKey, '?limit=ten');
    expectNativeError(notANumber, 400, 'invalid_request');
    expect(notANumber.body.data.meta.fields[0]).toMatchObject({ type: 'type', loc: ['query', 'limit'] });
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await history(undefined), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await history(apiKey), 404, 'user_not_found');
  });
});

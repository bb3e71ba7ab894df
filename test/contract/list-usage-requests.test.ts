import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount, issueKey } from '../../src/domain/accounts/accounts.js';
import type { Charge } from '../../src/domain/billing/billing.js';
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

const list = (key: string | undefined, query = '') =>
  call(h.baseUrl, 'GET', `/v1/llm/usage/requests${query}`, key === undefined ? {} : { key });

const ids = (requests: { id: string }[]) => requests.map((r) => r.id);

describe('GET /v1/llm/usage/requests', () => {
  it('200: key_id keeps the calls of that key only (issue 26); an id not the caller’s matches nothing', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const second = await issueKey(h.deps.apiKeys, accountId, 'second');
    const mine = await h.spend(apiKey, 0.1);
    const theirs = await h.spend(second.secret, 0.2);
    expect(ids(expectNativeOk(await list(apiKey, `?key_id=${keyId}`)).requests)).toEqual([mine.usageId]);
    const bySecond = expectNativeOk(await list(apiKey, `?key_id=${second.record.id}`)).requests;
    expect(bySecond).toMatchObject([{ id: theirs.usageId, key_id: second.record.id, cost_usd: 0.2 }]);
    expect(expectNativeOk(await list(apiKey, '?key_id=key_elsewhere')).requests).toEqual([]);
  });

  it('200: every billed call of the caller, newest first, with exact costs; another account’s never', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const other = await h.newAccount(undefined, { balanceUsd: 10 });
    const before = Date.now();
    const a = await h.spend(apiKey, 0.123456, {
      promptTokens: 100,
      completionTokens: 20,
      cachedTokens: 5,
      reasoningTokens: 7,
    });
    await tick();
    await h.spend(other.apiKey, 0.5);
    await tick();
    const b = await h.spend(apiKey, 1.5, {
      model: 'text-embedding-3-small',
      kind: 'embedding',
      endpoint: '/v1/compat/embeddings',
      promptTokens: 8,
    });
    const after = Date.now();

    const response = await list(apiKey);
    const data = expectNativeOk(response);
    expect(data).toMatchObject({ limit: 50, offset: 0, has_more: false });
    expect(ids(data.requests)).toEqual([b.usageId, a.usageId]);
    const [second, first] = data.requests;
    expect(first).toEqual({
      id: a.usageId,
      created_at: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
      key_id: keyId,
      model: 'gpt-5-mini',
      kind: 'chat',
      endpoint: '/v1/compat/chat/completions',
      prompt_tokens: 100,
      completion_tokens: 20,
      cached_tokens: 5,
      reasoning_tokens: 7,
      total_tokens: 120,
      cost_usd: 0.123456,
      cost_rub: 11.11104, // dollar-billed: cost × today's rate 90
      fx_rate_rub: 90,
      rub_pricing: 'market',
      duration_ms: expect.any(Number),
    });
    expect(first).not.toHaveProperty('metadata'); // only on the single-record endpoint
    expect(Date.parse(first.created_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(first.created_at)).toBeLessThanOrEqual(after);
    expect(second).toMatchObject({
      model: 'text-embedding-3-small',
      kind: 'embedding',
      endpoint: '/v1/compat/embeddings',
      prompt_tokens: 8,
      total_tokens: 8,
      cost_usd: 1.5,
      cost_rub: 135,
    });

    const others = expectNativeOk(await list(other.apiKey)).requests;
    expect(others).toHaveLength(1);
    expect(others[0].key_id).toBe(other.keyId);
    expect(ids(others)).not.toContain(a.usageId);
    expect(accountId).not.toBe(other.accountId);
  });

  it('200: model and since/until filters', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const first = await h.spend(apiKey, 0.1);
    await tick();
    const t1 = new Date().toISOString();
    await tick();
    const second = await h.spend(apiKey, 0.2, { model: 'claude-sonnet-4' });
    await tick();
    const t2 = new Date().toISOString();
    await tick();
    const third = await h.spend(apiKey, 0.3);

    const byModel = expectNativeOk(await list(apiKey, '?model=gpt-5-mini')).requests;
    expect(ids(byModel)).toEqual([third.usageId, first.usageId]);
    expect(ids(expectNativeOk(await list(apiKey, '?model=claude-sonnet-4')).requests)).toEqual([second.usageId]);
    expect(expectNativeOk(await list(apiKey, '?model=nope')).requests).toEqual([]);

    const q = (params: Record<string, string>) => `?${new URLSearchParams(params).toString()}`;
    expect(ids(expectNativeOk(await list(apiKey, q({ since: t1 }))).requests)).toEqual([third.usageId, second.usageId]);
    expect(ids(expectNativeOk(await list(apiKey, q({ until: t2 }))).requests)).toEqual([second.usageId, first.usageId]);
    expect(ids(expectNativeOk(await list(apiKey, q({ since: t1, until: t2 }))).requests)).toEqual([second.usageId]);
    expect(ids(expectNativeOk(await list(apiKey, q({ since: t1, model: 'gpt-5-mini' }))).requests)).toEqual([
      third.usageId,
    ]);
    // `since` is inclusive, `until` exclusive: a record's own time bounds it on both sides.
    const created = expectNativeOk(await list(apiKey, '?model=claude-sonnet-4')).requests[0].created_at as string;
    expect(ids(expectNativeOk(await list(apiKey, q({ since: created, until: created }))).requests)).toEqual([]);
    expect(ids(expectNativeOk(await list(apiKey, q({ since: created, model: 'claude-sonnet-4' }))).requests)).toEqual([
      second.usageId,
    ]);
  });

  it('200: since/until as typed in a shell (colons unencoded) and as plain dates (00:00 UTC of that day)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const before = new Date(Date.now() - 1000).toISOString();
    const record = await h.spend(apiKey, 0.1);
    const createdAt = expectNativeOk(await list(apiKey)).requests[0].created_at as string;
    const today = createdAt.slice(0, 10);
    const tomorrow = new Date(Date.parse(today) + 86_400_000).toISOString().slice(0, 10);

    expect(ids(expectNativeOk(await list(apiKey, `?since=${before}`)).requests)).toEqual([record.usageId]);
    expect(ids(expectNativeOk(await list(apiKey, `?since=${today}T00:00:00Z&until=${tomorrow}`)).requests)).toEqual([
      record.usageId,
    ]);
    expect(ids(expectNativeOk(await list(apiKey, `?since=${today}`)).requests)).toEqual([record.usageId]);
    expect(expectNativeOk(await list(apiKey, `?until=${today}`)).requests).toEqual([]);
    expect(expectNativeOk(await list(apiKey, `?since=${tomorrow}`)).requests).toEqual([]);
  });

  it('200: limit, offset and has_more page through newest first', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const charges: Charge[] = [];
    for (const cost of [0.01, 0.02, 0.03]) {
      charges.push(await h.spend(apiKey, cost));
      await tick();
    }
    const [c1, c2, c3] = charges.map((c) => c.usageId);
    const page1 = expectNativeOk(await list(apiKey, '?limit=2'));
    expect(page1).toMatchObject({ limit: 2, offset: 0, has_more: true });
    expect(ids(page1.requests)).toEqual([c3, c2]);
    const page2 = expectNativeOk(await list(apiKey, '?limit=2&offset=2'));
    expect(page2).toMatchObject({ limit: 2, offset: 2, has_more: false });
    expect(ids(page2.requests)).toEqual([c1]);
    expect(expectNativeOk(await list(apiKey, '?limit=3'))).toMatchObject({ has_more: false });
    expect(ids(expectNativeOk(await list(apiKey, '?limit=1&offset=1')).requests)).toEqual([c2]);
    expect(expectNativeOk(await list(apiKey, '?offset=3')).requests).toEqual([]);
  });

  it('400 invalid_request with meta.fields for a bad since and for limit=0', async () => {
    const { apiKey } = await h.newAccount();
    const badSince = await list(apiKey, '?since=yesterday');
    expectNativeError(badSince, 400, 'invalid_request');
    expect(badSince.body.data.error).toMatch(/^query\.since: /);
    expect(badSince.body.data.meta.fields[0]).toMatchObject({ type: 'format', loc: ['query', 'since'] });

    const zero = await list(apiKey, '?limit=0');
    expectNativeError(zero, 400, 'invalid_request');
    expect(zero.body.data.meta.fields[0]).toMatchObject({ type: 'minimum', loc: ['query', 'limit'] });

    const tooMany = await list(apiKey, '?limit=501');
    expectNativeError(tooMany, 400, 'invalid_request');
    expect(tooMany.body.data.meta.fields[0]).toMatchObject({ type: 'maximum', loc: ['query', 'limit'] });
  });

  it('400 invalid_request with meta.fields for a date-time that does not exist', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    await h.spend(apiKey, 0.1);
    const response = await list(apiKey, `?since=${encodeURIComponent('2025-19-01T00:00:00Z')}`);
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0]).toMatchObject({ type: 'format', loc: ['query', 'since'] });
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await list(undefined), 401, 'authentication_required');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await list(apiKey), 404, 'user_not_found');
  });
});

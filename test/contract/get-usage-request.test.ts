import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const getRecord = (key: string | undefined, id: string) =>
  call(h.baseUrl, 'GET', `/v1/llm/usage/requests/${encodeURIComponent(id)}`, key === undefined ? {} : { key });

describe('GET /v1/llm/usage/requests/{log_id}', () => {
  it('200: the record in full, with its metadata', async () => {
    const { apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 5 });
    const metadata = { finish_reason: 'stop', provider: 'alpha', attempts: 2, nested: { stream: false } };
    const charge = await h.spend(apiKey, 0.004321, {
      model: 'gpt-5-mini',
      promptTokens: 40,
      completionTokens: 60,
      reasoningTokens: 10,
      metadata,
    });
    const response = await getRecord(apiKey, charge.usageId);
    const { request } = expectNativeOk(response);
    expect(request).toEqual({
      id: charge.usageId,
      created_at: expect.any(String),
      request_id: expect.stringMatching(/^req_/),
      key_id: keyId,
      model: 'gpt-5-mini',
      kind: 'chat',
      endpoint: '/v1/compat/chat/completions',
      prompt_tokens: 40,
      completion_tokens: 60,
      cached_tokens: 0,
      reasoning_tokens: 10,
      total_tokens: 100,
      cost_usd: 0.004321,
      cost_rub: 0.38889, // 0.004321 × 90
      fx_rate_rub: 90,
      rub_pricing: 'market',
      duration_ms: expect.any(Number),
      metadata,
    });
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
  });

  it('200: a record billed in rubles carries the lot rate', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await h.topUp(accountId, 10, 80);
    await h.deps.apiKeys.updateAccountSettings(accountId, { rubBilling: true });
    h.deps.authenticator.invalidate({ accountId });
    const charge = await h.spend(apiKey, 2);
    const { request } = expectNativeOk(await getRecord(apiKey, charge.usageId));
    expect(request).toMatchObject({ cost_usd: 2, cost_rub: 160, fx_rate_rub: 80, rub_pricing: 'billed', metadata: {} });
  });

  it('400 invalid_request with meta.fields for a log_id over 64 characters', async () => {
    const { apiKey } = await h.newAccount();
    const response = await getRecord(apiKey, `log_${'x'.repeat(61)}`);
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0]).toMatchObject({ type: 'maxLength', loc: ['path', 'log_id'] });
  });

  it('401 authentication_required without a key', async () => {
    expectNativeError(await getRecord(undefined, 'log_anything'), 401, 'authentication_required');
  });

  it('404 usage_record_not_found for an unknown id and for another account’s record', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const other = await h.newAccount(undefined, { balanceUsd: 1 });
    const theirs = await h.spend(other.apiKey, 0.1);
    expectNativeError(await getRecord(apiKey, 'log_00000000000000000000'), 404, 'usage_record_not_found');
    const foreign = await getRecord(apiKey, theirs.usageId);
    expectNativeError(foreign, 404, 'usage_record_not_found');
    expect(foreign.text).not.toContain(other.keyId);
    expectNativeOk(await getRecord(other.apiKey, theirs.usageId)); // it does exist, for its owner
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const charge = await h.spend(apiKey, 0.1);
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await getRecord(apiKey, charge.usageId), 404, 'user_not_found');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UpstreamError, type UpstreamProvider } from '../../src/adapters/upstream/index.js';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { micros } from '../setup/money.js';
import { eventually, pollUntil } from '../setup/polling.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const MODEL = 'gpt-5-mini';
const hello = [{ role: 'user', content: 'Say hello' }];

const kickoff = (key: string, body: unknown) => call(h.baseUrl, 'POST', '/v1/llm/chat/jobs', { key, body });
const poll = (key: string | undefined, jobId: string, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'GET', `/v1/llm/chat/jobs/${encodeURIComponent(jobId)}`, {
    ...(key === undefined ? {} : { key }),
    ...options,
  });

/** Polls every 20 ms until the job is terminal; at most 5 s. */
const untilDone = (key: string, jobId: string): Promise<any> =>
  eventually(
    async () => {
      const data = expectNativeOk(await poll(key, jobId));
      return data.status === 'completed' || data.status === 'failed' ? data : undefined;
    },
    5_000,
    `job ${jobId} finished`,
  );

describe('GET /v1/llm/chat/jobs/{job_id}', () => {
  it('200: pending/processing, then completed with result, cost_usd and balance_usd; replayed to every poll', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const job = expectNativeOk(await kickoff(apiKey, { model: MODEL, messages: hello }), 202);
    const first = await poll(apiKey, job.job_id);
    expect(first.headers.get('x-ratelimit-limit')).toBe('120');
    expect(['pending', 'processing', 'completed']).toContain(expectNativeOk(first).status);

    const done = await untilDone(apiKey, job.job_id);
    expect(done.status).toBe('completed');
    expect(Object.keys(done).sort()).toEqual([
      'balance_usd',
      'cost_usd',
      'estimated_cost_usd',
      'job_id',
      'model',
      'result',
      'status',
    ]);
    expect(done.result.usage.cost).toBe(done.cost_usd);
    const posted = await h.deps.ledger.postedSpend(accountId);
    expect(micros(done.cost_usd)).toBe(posted);
    expect(micros(done.balance_usd)).toBe(5_000_000n - posted);
    for (let i = 0; i < 3; i++) expect(expectNativeOk(await poll(apiKey, job.job_id))).toEqual(done);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(posted);
  });

  it('a job also completes and is charged when nobody polls it', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const job = expectNativeOk(await kickoff(apiKey, { model: MODEL, messages: hello }), 202);
    const posted = await pollUntil(
      () => h.deps.ledger.postedSpend(accountId),
      (v) => v > 0n,
      { withinMs: 5_000 },
    );
    expect(posted).toBeGreaterThan(0n);
    const done = expectNativeOk(await poll(apiKey, job.job_id));
    expect(done.status).toBe('completed');
    expect(micros(done.cost_usd)).toBe(posted);
  });

  it('200 failed: an upstream failure ends the job with error and error_code; nothing charged, the hold released', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const [route] = h.deps.routes.chain(MODEL, 'chat');
    const provider = route!.provider as UpstreamProvider & { chat: NonNullable<UpstreamProvider['chat']> };
    const original = provider.chat;
    provider.chat = async () => {
      throw new UpstreamError({ kind: 'http', status: 500, message: 'sandbox is down' });
    };
    let done: Awaited<ReturnType<typeof untilDone>>;
    try {
      const job = expectNativeOk(await kickoff(apiKey, { model: MODEL, messages: hello }), 202);
      done = await untilDone(apiKey, job.job_id);
    } finally {
      provider.chat = original;
    }
    expect(done).toMatchObject({ status: 'failed', model: MODEL, error_code: 'upstream_server_error' });
    expect(typeof done.error).toBe('string');
    expect(done).not.toHaveProperty('result');
    expect(done).not.toHaveProperty('cost_usd');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd).toBe(5);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: apiKey })).requests).toEqual(
      [],
    );
  });

  it('404 job_not_found for another account’s job (indistinguishable from none)', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 5 });
    const job = expectNativeOk(await kickoff(owner.apiKey, { model: MODEL, messages: hello }), 202);
    const stranger = await h.newAccount(undefined, { balanceUsd: 5 });
    const response = await poll(stranger.apiKey, job.job_id);
    expectNativeError(response, 404, 'job_not_found');
    expect(response.body.message).toBe('Не найдено');
    expect(response.headers.get('x-should-retry')).toBe('false');
    // The owner still sees it.
    expect((await untilDone(owner.apiKey, job.job_id)).status).toBe('completed');
  });

  it('404 job_not_found for an id that never existed', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(await poll(apiKey, 'job_doesnotexist000000000000'), 404, 'job_not_found');
    expectNativeError(await poll(apiKey, 'x'), 404, 'job_not_found');
  });

  it('400 invalid_request for a job_id longer than 64 characters', async () => {
    const { apiKey } = await h.newAccount();
    const response = await poll(apiKey, 'j'.repeat(65));
    expectNativeError(response, 400, 'invalid_request');
    expect(response.body.data.meta.fields[0]).toMatchObject({ type: 'maxLength', loc: ['path', 'job_id'] });
  });

  it('401 without a key and with an unknown key in either header', async () => {
    expectNativeError(await poll(undefined, 'job_x'), 401, 'authentication_required');
    expectNativeError(await poll(`cgw_${'Z'.repeat(40)}`, 'job_x'), 401, 'invalid_api_key');
    expectNativeError(await poll(`cgw_${'Z'.repeat(40)}`, 'job_x', { keyHeader: 'x-api-key' }), 401, 'invalid_api_key');
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await poll(apiKey, 'job_x'), 404, 'user_not_found');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { estimatePromptTokens } from '../../src/domain/text/token-counting.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ BODY_LIMIT_BYTES: '65536' });
});
afterAll(() => h.close());

const MODEL = 'gpt-5-mini';
const hello = [{ role: 'user', content: 'Say hello' }];

const kickoff = (key: string | undefined, body: unknown, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'POST', '/v1/llm/chat/jobs', { ...(key === undefined ? {} : { key }), body, ...options });
const poll = (key: string, jobId: string) =>
  call(h.baseUrl, 'GET', `/v1/llm/chat/jobs/${encodeURIComponent(jobId)}`, { key });

const micros = (usd: number) => BigInt(Math.round(usd * 1e6));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls every 20 ms until the job is terminal; at most 5 s. */
async function untilDone(key: string, jobId: string): Promise<any> {
  for (let i = 0; i < 250; i++) {
    const data = expectNativeOk(await poll(key, jobId));
    if (data.status === 'completed' || data.status === 'failed') return data;
    expect(['pending', 'processing']).toContain(data.status);
    await sleep(20);
  }
  throw new Error(`job ${jobId} did not finish in 5 s`);
}

describe('POST /v1/llm/chat/jobs', () => {
  it('409 idempotency_conflict for a key reused with another body; the same body is replayed; 400 for a malformed key', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    await expectIdempotencyContract(
      (body, key) => kickoff(apiKey, body, { headers: { 'idempotency-key': key } }),
      {
        first: { model: MODEL, messages: hello },
        other: { model: MODEL, messages: [{ role: 'user', content: 'Say goodbye' }] },
      },
      'native',
      202,
    );
  });

  it('202: job_id, status and the estimate (the worst-case hold); the job completes and is charged once', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await kickoff(apiKey, { model: MODEL, messages: hello, max_tokens: 1000 });
    const job = expectNativeOk(response, 202);
    expect(response.body.message).toBe('Задача принята');
    expect(job.job_id).toMatch(/^job_/);
    expect(['pending', 'processing']).toContain(job.status);
    expect(job.model).toBe(MODEL);
    const row = h.deps.catalog.find(MODEL)!;
    const worstCase = Math.round(
      estimatePromptTokens({ messages: hello }) * row.retail_input_usd_per_mtok! +
        1000 * row.retail_output_usd_per_mtok!,
    );
    expect(micros(job.estimated_cost_usd)).toBe(BigInt(worstCase));
    expect(job).not.toHaveProperty('result');

    const done = await untilDone(apiKey, job.job_id);
    expect(done).toMatchObject({
      job_id: job.job_id,
      status: 'completed',
      model: MODEL,
      estimated_cost_usd: job.estimated_cost_usd,
    });
    expect(done.result).toMatchObject({
      object: 'chat.completion',
      model: MODEL,
      choices: [{ index: 0, message: { role: 'assistant' }, finish_reason: 'stop' }],
    });
    expect(done.cost_usd).toBe(done.result.usage.cost);
    expect(done.cost_usd).toBeGreaterThan(0);
    expect(done.cost_usd).toBeLessThanOrEqual(job.estimated_cost_usd);
    const posted = await h.deps.ledger.postedSpend(accountId);
    expect(micros(done.cost_usd)).toBe(posted);
    expect(micros(done.balance_usd)).toBe(10_000_000n - posted);

    // Replayed, not re-run: the same payload, still one charge and one usage record.
    expect(expectNativeOk(await poll(apiKey, job.job_id))).toEqual(done);
    await sleep(40);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(posted);
    const requests = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: apiKey })).requests;
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      model: MODEL,
      kind: 'chat',
      cost_usd: done.cost_usd,
      request_id: response.headers.get('x-request-id'),
    });
  });

  it('the result is the same completion a chat call gives for the same messages', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const job = expectNativeOk(await kickoff(apiKey, { messages: hello }), 202);
    expect(job.model).toBe(h.deps.catalog.defaultModel);
    const done = await untilDone(apiKey, job.job_id);
    const direct = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
      key: apiKey,
      body: { messages: hello },
    });
    expect(done.result.choices[0].message.content).toBe(direct.body.choices[0].message.content);
    expect(done.result.usage).toEqual(direct.body.usage);
  });

  it('an alias resolves to the native slug; `stream: true` in the body is ignored (a job never streams)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const job = expectNativeOk(
      await kickoff(apiKey, { model: 'openai/gpt-5-mini', messages: hello, stream: true }),
      202,
    );
    expect(job.model).toBe(MODEL);
    const done = await untilDone(apiKey, job.job_id);
    expect(done.status).toBe('completed');
    expect(done.result.model).toBe(MODEL);
  });

  const cases: [string, string, Record<string, unknown>][] = [
    ['model empty', 'model_required', { model: '', messages: hello }],
    ['an unknown model', 'model_not_found', { model: 'no-such-model', messages: hello }],
    ['an image model', 'model_is_image', { model: 'imgG-1', messages: hello }],
    ['a rerank model', 'model_is_retrieval', { model: 'bge-reranker-v2-m3', messages: hello }],
    ['an unavailable row', 'no_provider_available', { model: 'o1', messages: hello }],
    ['messages missing', 'messages_required', { model: MODEL }],
    ['messages empty', 'messages_required', { model: MODEL, messages: [] }],
    ['whitespace content', 'empty_message_content', { model: MODEL, messages: [{ role: 'user', content: ' ' }] }],
    ['a bad role', 'invalid_messages_format', { model: MODEL, messages: [{ role: 'narrator', content: 'hi' }] }],
    [
      'a bad data URI',
      'invalid_image_payload',
      {
        model: MODEL,
        messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/gif;base64,!!' } }] }],
      },
    ],
    ['temperature 3', 'invalid_temperature', { model: MODEL, messages: hello, temperature: 3 }],
    ['top_p 1.5', 'invalid_top_p', { model: MODEL, messages: hello, top_p: 1.5 }],
    ['max_tokens 0', 'invalid_max_tokens', { model: MODEL, messages: hello, max_tokens: 0 }],
    ['max_tokens above the cap', 'invalid_max_tokens', { model: MODEL, messages: hello, max_tokens: 128_001 }],
    [
      'a prompt over the context window',
      'context_window_exceeded',
      { model: 'gemma-2-9b-it', messages: [{ role: 'user', content: 'lorem ipsum '.repeat(4500) }] },
    ],
  ];

  it.each(cases)('400 at kickoff: %s → %s; no job, nothing held', async (_name, code, body) => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await kickoff(apiKey, body);
    expectNativeError(response, 400, code);
    expect(response.body.data).not.toHaveProperty('job_id');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/account', { key: apiKey })).balance_usd).toBe(10);
  });

  it('402 insufficient_balance before any job exists: nothing charged, nothing logged', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const response = await kickoff(apiKey, { model: MODEL, messages: hello });
    expectNativeError(response, 402, 'insufficient_balance');
    expect(response.body.data).not.toHaveProperty('job_id');
    await sleep(40);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: apiKey })).requests).toEqual(
      [],
    );
  });

  it('401 without a key and with an unknown key in either header', async () => {
    expectNativeError(await kickoff(undefined, { messages: hello }), 401, 'authentication_required');
    expectNativeError(await kickoff(`cgw_${'Z'.repeat(40)}`, { messages: hello }), 401, 'invalid_api_key');
    expectNativeError(
      await kickoff(`cgw_${'Z'.repeat(40)}`, { messages: hello }, { keyHeader: 'x-api-key' }),
      401,
      'invalid_api_key',
    );
  });

  it('413 over the body cap and 415 for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectNativeError(
      await kickoff(apiKey, { messages: [{ role: 'user', content: 'x'.repeat(70_000) }] }),
      413,
      'request_too_large',
    );
    expectNativeError(
      await kickoff(apiKey, undefined, { rawBody: 'hi', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });
});

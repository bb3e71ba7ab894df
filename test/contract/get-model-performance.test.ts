import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { postSse } from '../setup/sse.js';
import { sleep } from '../setup/time.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const performance = (key: string | undefined, slug: string, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'GET', `/v1/llm/models/${encodeURIComponent(slug)}/performance`, {
    ...(key === undefined ? {} : { key }),
    ...options,
  });

/** One streamed chat on `model`, read to `[DONE]`. */
async function streamOnce(apiKey: string, model: string, text: string): Promise<void> {
  const stream = await postSse(h.baseUrl, '/v1/compat/chat/completions', {
    key: apiKey,
    body: { model, messages: [{ role: 'user', content: text }], stream: true },
  });
  expect(stream.status, stream.raw).toBe(200);
  expect(stream.frames.at(-1)).toBe('[DONE]');
}

describe('GET /v1/llm/models/{slug}/performance', () => {
  it('200 before any traffic: the catalog estimate, tokens_per_sec_approx true, no samples', async () => {
    const { apiKey } = await h.newAccount();
    const row = h.deps.catalog.find('gpt-4o')!;
    const response = await performance(apiKey, 'gpt-4o');
    expect(expectNativeOk(response)).toEqual({
      slug: 'gpt-4o',
      tokens_per_sec: row.tokens_per_sec,
      tokens_per_sec_approx: true,
      samples: 0,
      window_sec: 3600,
      median_time_to_first_token_ms: null,
    });
    expect(response.headers.get('x-ratelimit-limit')).toBe('120');
  });

  it('after a streamed chat on the model: measured (approx false, samples ≥ 1, a positive rate and a TTFT)', async () => {
    const slug = 'gpt-4-1-mini';
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expect(expectNativeOk(await performance(apiKey, slug))).toMatchObject({ tokens_per_sec_approx: true, samples: 0 });
    let data = expectNativeOk(await performance(apiKey, slug));
    // The sandbox answers in well under a millisecond; a stream with no measurable duration says nothing about speed,
    // so stream until one is measured (bounded).
    for (let i = 0; i < 20 && data.samples === 0; i++) {
      await streamOnce(apiKey, slug, `Tell me something ${i}`);
      await sleep(5);
      data = expectNativeOk(await performance(apiKey, slug));
    }
    expect(data.slug).toBe(slug);
    expect(data.samples).toBeGreaterThanOrEqual(1);
    expect(data.tokens_per_sec_approx).toBe(false);
    expect(data.tokens_per_sec).toBeGreaterThan(0);
    expect(data.median_time_to_first_token_ms).toBeGreaterThanOrEqual(0);
    // Another model is untouched.
    expect(expectNativeOk(await performance(apiKey, 'gpt-4o')).samples).toBe(0);
  });

  it('a non-stream chat is not a throughput sample', async () => {
    const slug = 'gpt-4-1-nano';
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const chat = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
      key: apiKey,
      body: { model: slug, messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(chat.status, chat.text).toBe(200);
    expect(expectNativeOk(await performance(apiKey, slug))).toMatchObject({ samples: 0, tokens_per_sec_approx: true });
  });

  it('an alias answers for its native slug', async () => {
    const { apiKey } = await h.newAccount();
    expect(expectNativeOk(await performance(apiKey, 'gpt-5-mini-2025-08-07'))).toMatchObject({
      slug: 'gpt-5-mini',
      tokens_per_sec: 115,
    });
    expect(expectNativeOk(await performance(apiKey, 'openai/gpt-5-mini')).slug).toBe('gpt-5-mini');
  });

  it('400 model_not_found for a slug not in the catalog', async () => {
    const { apiKey } = await h.newAccount();
    const response = await performance(apiKey, 'no-such-model-1');
    expectNativeError(response, 400, 'model_not_found');
    expect(response.body.data.meta.slug).toBe('no-such-model-1');
    expect(response.headers.get('x-should-retry')).toBe('false');
  });

  it('401 without a key and with an unknown key in either header', async () => {
    expectNativeError(await performance(undefined, 'gpt-5-mini'), 401, 'authentication_required');
    expectNativeError(await performance(`cgw_${'Z'.repeat(40)}`, 'gpt-5-mini'), 401, 'invalid_api_key');
    expectNativeError(
      await performance(`cgw_${'Z'.repeat(40)}`, 'gpt-5-mini', { keyHeader: 'x-api-key' }),
      401,
      'invalid_api_key',
    );
  });

  it('404 user_not_found once the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await performance(apiKey, 'gpt-5-mini'), 404, 'user_not_found');
  });
});

/**
 * POST /v1/ai/recommendation (SPEC 2.13): constraints read from the query, suggestions only from GPUs on offer now,
 * the text written by the rules (free) or by RECOMMENDATION_MODEL (billed exactly like a chat completion).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Recommendations } from '../../src/domain/market/recommendation.js';
import { closedPortUrl } from '../fixtures/fake-upstream.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';
import { micros } from '../setup/money.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const recommend = (h: Harness, key: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  call(h.baseUrl, 'POST', '/v1/ai/recommendation', { ...(key === undefined ? {} : { key }), body, headers });

/** A small marketplace: three GPU models online, one machine offline and one unlisted (neither is on offer). */
async function stockMarket(h: Harness): Promise<void> {
  const a100 = await newProvider(h, {
    gpu_name: 'A100_80GB',
    gpu_count: 8,
    vram_gb: 80,
    price_per_gpu_hour_usd: 1.5,
    location: 'DE',
  });
  await h.deps.market.store.updateMachine(a100.machineId, { verification: 'verified' });
  await newProvider(h, {
    gpu_name: 'RTX_4090',
    gpu_count: 8,
    vram_gb: 24,
    price_per_gpu_hour_usd: 0.6,
    location: 'US',
  });
  await newProvider(h, { gpu_name: 'L4', gpu_count: 2, vram_gb: 24, price_per_gpu_hour_usd: 0.3, location: 'FR' });
  const offline = await newProvider(h, {
    gpu_name: 'H100_SXM',
    gpu_count: 8,
    vram_gb: 80,
    price_per_gpu_hour_usd: 2,
    location: 'DE',
  });
  await h.deps.market.store.updateMachine(offline.machineId, {
    lastHeartbeatMs: Date.now() - h.deps.config.MACHINE_OFFLINE_MS - 1,
  });
  await newProvider(h, {
    gpu_name: 'B200',
    gpu_count: 8,
    vram_gb: 192,
    price_per_gpu_hour_usd: 0.1,
    location: 'DE',
    listed: false,
  });
}

describe('POST /v1/ai/recommendation, written by the rules (no RECOMMENDATION_MODEL)', () => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness();
    await stockMarket(h);
    key = (await h.newAccount()).apiKey; // a zero balance: the rules are free
  });
  afterAll(() => h.close());

  it('a 70B model under a budget: the fitting GPUs on offer, with reasons, never one that is not offered', async () => {
    const data = expectNativeOk(await recommend(h, key, { query: 'Serve llama 3 70B under $8 per hour' }));
    expect(data.constraints).toEqual({
      model_size_billions: 70,
      precision: '16-bit',
      vram_needed_gb: 168,
      min_vram_per_gpu_gb: null,
      max_price_per_hour_usd: 8,
      budget_per: 'rental',
      gpu_count: null,
      locations: [],
      gpu_models: [],
      gpus_not_offered: [],
    });
    expect(
      data.suggested_gpus.map((g: { model: string; gpu_count: number; price_per_hour_usd: number }) => [
        g.model,
        g.gpu_count,
        g.price_per_hour_usd,
      ]),
    ).toEqual([
      ['RTX_4090', 8, 4.8],
      ['A100_80GB', 4, 6],
    ]);
    expect(data.suggested_gpus[1]).toMatchObject({
      vram_gb: 80,
      free_gpus: 8,
      price_per_gpu_hour_usd: 1.5,
      location: 'DE',
      verification: 'verified',
      matching_offers: 1,
      unmet: [],
    });
    expect(data.suggested_gpus[1].reason).toContain('4 × 80 GB = 320 GB covers the 168 GB needed');
    const offered = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/marketplace/offers', { key })).offers.map(
      (o: { gpu_name: string }) => o.gpu_name,
    );
    for (const gpu of data.suggested_gpus) expect(offered).toContain(gpu.model);
    expect(data.recommendation).toMatch(
      /^For a 70B model at 16-bit \(about 168 GB of GPU memory\), at most \$8\.00\/hour: rent 8 × RTX_4090 at \$4\.80\/hour/,
    );
    expect(data.recommendation).not.toMatch(/H100|B200|L4/);
    expect(data).toMatchObject({ alternatives: [], written_by: 'rules', cost_usd: 0 });
    expect(data).not.toHaveProperty('model');
  });

  it('places and GPU models narrow it: "in Germany" leaves the A100, not the offline H100 there', async () => {
    const data = expectNativeOk(await recommend(h, key, { query: '70B in Germany' }));
    expect(data.constraints.locations).toEqual(['DE']);
    expect(data.suggested_gpus.map((g: { model: string }) => g.model)).toEqual(['A100_80GB']);
    const named = expectNativeOk(await recommend(h, key, { query: 'a 4090 or an L4 for a 7b model' }));
    expect(named.constraints.gpu_models).toEqual(['RTX_4090', 'L4']);
    expect(named.suggested_gpus.map((g: { model: string }) => g.model)).toEqual(['L4', 'RTX_4090']);
  });

  it('nothing matching: no suggestion, and the text says what is missing and the nearest alternatives', async () => {
    const data = expectNativeOk(await recommend(h, key, { query: '70B under $2/hour' }));
    expect(data.suggested_gpus).toEqual([]);
    expect(data.alternatives.map((g: { model: string; unmet: string[] }) => [g.model, g.unmet])).toEqual([
      ['RTX_4090', ['budget']],
      ['A100_80GB', ['budget']],
      ['L4', ['gpu_count', 'budget']],
    ]);
    expect(data.recommendation).toMatch(
      /^Nothing on offer now meets all of: .*\. What fits costs more than \$2\.00\/hour\. Nearest: 8 × RTX_4090 at \$4\.80\/hour/,
    );
    const h100 = expectNativeOk(await recommend(h, key, { query: 'an H100 please' }));
    expect(h100.constraints.gpus_not_offered).toEqual(['H100']);
    expect(h100.suggested_gpus).toEqual([]);
    expect(h100.recommendation).toContain('H100 is not offered now');
  });

  it('400 invalid_request for an empty, blank, too long or missing query', async () => {
    for (const body of [
      { query: '' },
      { query: '   ' },
      { query: 'x'.repeat(2001) },
      {},
      { query: '70B', model: 'gpt-5-mini' },
    ]) {
      expectNativeError(await recommend(h, key, body), 400, 'invalid_request');
    }
    expectNativeOk(await recommend(h, key, { query: 'x'.repeat(2000) }));
  });

  it('401 without a key, as every keyed operation', async () => {
    expectNativeError(await recommend(h, undefined, { query: '70B' }), 401, 'authentication_required');
    expectNativeError(await recommend(h, 'cgw_not_a_key', { query: '70B' }), 401, 'invalid_api_key');
  });

  it('refuses to start with a RECOMMENDATION_MODEL that is not a chat model of the catalog', () => {
    const deps = {
      store: h.deps.market.store,
      chat: h.deps.chat,
      catalog: h.deps.catalog,
      now: Date.now,
      logger: h.deps.logger,
    };
    expect(
      () => new Recommendations({ ...deps, settings: { offlineAfterMs: 90_000, model: 'text-embedding-3-small' } }),
    ).toThrow(/is not a chat model of the catalog/);
    expect(
      () => new Recommendations({ ...deps, settings: { offlineAfterMs: 90_000, model: 'no-such-model' } }),
    ).toThrow(/is not a chat model of the catalog/);
  });
});

describe('POST /v1/ai/recommendation, written by RECOMMENDATION_MODEL (a sandbox chat model)', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ RECOMMENDATION_MODEL: 'gpt-5-mini' });
    await stockMarket(h);
  });
  afterAll(() => h.close());

  it('the model writes the text and the caller is charged exactly what its chat usage line says', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const response = await recommend(
      h,
      apiKey,
      { query: 'Serve llama 3 70B under $8 per hour' },
      { 'idempotency-key': 'rec-1' },
    );
    const data = expectNativeOk(response);
    expect(data).toMatchObject({
      written_by: 'model',
      model: 'gpt-5-mini',
      recommendation: expect.stringMatching(/\S/),
    });
    expect(data.suggested_gpus.map((g: { model: string }) => g.model)).toEqual(['RTX_4090', 'A100_80GB']);
    expect(data.cost_usd).toBeGreaterThan(0);
    const [line, ...more] = await h.deps.usageLog.list(accountId, {}, { limit: 10, offset: 0 });
    expect(more).toEqual([]);
    expect(line).toMatchObject({
      model: 'gpt-5-mini',
      kind: 'chat',
      endpoint: 'chat.completions',
      requestId: response.headers.get('x-request-id'),
      costMicros: micros(data.cost_usd),
    });
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(data.cost_usd));
    // A retry with the same Idempotency-Key is the same answer, not a second charge.
    const replay = await recommend(
      h,
      apiKey,
      { query: 'Serve llama 3 70B under $8 per hour' },
      { 'idempotency-key': 'rec-1' },
    );
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(response.body);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(data.cost_usd));
  });

  it('402 insufficient_balance for a caller who cannot pay the model; nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount();
    expectNativeError(await recommend(h, apiKey, { query: '70B under $8 per hour' }), 402, 'insufficient_balance');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(await h.deps.usageLog.list(accountId, {}, { limit: 10, offset: 0 })).toEqual([]);
  });
});

describe('POST /v1/ai/recommendation when the model’s upstreams fail', () => {
  let h: Harness;
  beforeAll(async () => {
    const upstreams = writeUpstreamsFile(
      { 'gpt-5-mini': [{ provider: 'down', url: await closedPortUrl() }] },
      { sandboxDefault: true },
    );
    h = await startHarness({ RECOMMENDATION_MODEL: 'gpt-5-mini', UPSTREAMS_FILE: upstreams });
    await stockMarket(h);
  });
  afterAll(async () => {
    await h.close();
    removeUpstreamsFiles();
  });

  it('the rules write the text and nothing is charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const data = expectNativeOk(await recommend(h, apiKey, { query: '70B under $8 per hour' }));
    expect(data).toMatchObject({ written_by: 'rules', cost_usd: 0 });
    expect(data).not.toHaveProperty('model');
    expect(data.recommendation).toMatch(/^For a 70B model/);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect(h.logs.some((line) => line.msg === 'recommendation model failed; the rules wrote the text')).toBe(true);
  });
});

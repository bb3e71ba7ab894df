import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteAccount, setDiscounts } from '../../src/domain/accounts/accounts.js';
import { CATALOG_ENTRY_FIELDS } from '../setup/catalog-rows.js';
import { expectCompatError, expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const catalog = (key?: string) => call(h.baseUrl, 'GET', '/v1/llm/models/catalog', key === undefined ? {} : { key });

describe('GET /v1/llm/models/catalog', () => {
  it('200 without a key: at least 370 models, every field of SPEC 2.5 on every row, and default_model', async () => {
    const data = expectNativeOk(await catalog());
    expect(data.models.length).toBeGreaterThanOrEqual(370);
    for (const model of data.models) expect(Object.keys(model).sort()).toEqual(CATALOG_ENTRY_FIELDS);
    expect(data.models.map((m: { slug: string }) => m.slug)).toContain(data.default_model);
    expect(data.external_models.length).toBeGreaterThan(0);
    expect(new Set(data.models.map((m: { media_kind: string }) => m.media_kind))).toEqual(
      new Set(['text', 'image', 'video', 'music', 'audio', 'embedding', 'rerank']),
    );
  });

  it('with a key, prices are the caller’s own: personal discount, and a tier discount where set', async () => {
    const publicRow = (await catalog()).body.data.models.find((m: { slug: string }) => m.slug === 'imgG-2');
    const { accountId, apiKey } = await h.newAccount();
    await setDiscounts(h.deps.apiKeys, accountId, { discountPercent: 10, tierDiscounts: { '4K': 25 } });
    const row = expectNativeOk(await catalog(apiKey)).models.find((m: { slug: string }) => m.slug === 'imgG-2');
    expect(row.user_discount_percent).toBe(10);
    expect(row.user_tier_discounts).toEqual({ '4K': 25 });
    expect(row.retail_usd_per_image).toBeCloseTo(publicRow.retail_usd_per_image * 0.9, 6);
    expect(row.pricing['1K']).toBeCloseTo(0.0464 * 0.9, 6);
    expect(row.pricing['4K']).toBeCloseTo(0.11 * 0.75, 6);
    expect(publicRow.user_discount_percent).toBe(0);
  });

  it('with a key, unit prices finer than a micro-dollar show the discount exactly (issue 24: speech at 10 % off)', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await setDiscounts(h.deps.apiKeys, accountId, { discountPercent: 10, tierDiscounts: {} });
    const rows = new Map(
      expectNativeOk(await catalog(apiKey)).models.map((m: { slug: string; retail_usd_per_unit: number | null }) => [
        m.slug,
        m.retail_usd_per_unit,
      ]),
    );
    expect(
      Object.fromEntries(['tts-1', 'kokoro-82m', 'orpheus-3b', 'inworld-tts-1'].map((slug) => [slug, rows.get(slug)])),
    ).toEqual({
      'tts-1': 0.0000135,
      'kokoro-82m': 0.0000009,
      'orpheus-3b': 0.0000045,
      'inworld-tts-1': 0.0000045,
    });
  });

  it('a key without discounts sees the public prices', async () => {
    const { apiKey } = await h.newAccount();
    expect(expectNativeOk(await catalog(apiKey))).toEqual((await catalog()).body.data);
  });

  it('401: a key that is sent but malformed, unknown or revoked is refused, not ignored', async () => {
    expectNativeError(await catalog('not-a-key'), 401, 'invalid_api_key');
    expectNativeError(await catalog(`cgw_${'a'.repeat(40)}`), 401, 'invalid_api_key');
  });

  it('404: user_not_found when the account behind the key was deleted', async () => {
    const { accountId, apiKey } = await h.newAccount();
    await deleteAccount(h.deps.apiKeys, accountId);
    expectNativeError(await catalog(apiKey), 404, 'user_not_found');
  });
});

describe('output formats follow the routes (issue 24: what is advertised is deliverable)', () => {
  const estimate = (key: string, model: string, outputFormat: string) =>
    call(h.baseUrl, 'POST', '/v1/llm/videos/jobs/estimate', {
      key,
      body: { model, prompt: 'Waves', output_format: outputFormat },
    });

  it('a video model lists only the containers a route renders, and each one listed is accepted; webm, which none renders, is not listed', async () => {
    const rows = new Map(
      expectNativeOk(await catalog()).models.map((m: { slug: string; capabilities: { output_formats?: string[] } }) => [
        m.slug,
        m.capabilities.output_formats,
      ]),
    );
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    for (const slug of ['vidA-2-5', 'vidK-3-0', 'wan-2-6', 'ltx-2-pro']) {
      const listed = rows.get(slug) as string[];
      expect(listed, slug).not.toContain('webm');
      expect(listed.length, slug).toBeGreaterThan(0);
      for (const format of listed) expect((await estimate(apiKey, slug, format)).status, `${slug} ${format}`).toBe(200);
      expectNativeError(await estimate(apiKey, slug, 'webm'), 400, 'invalid_request');
    }
  });

  it('a route that delivers webm makes it listed; a route that delivers mp4 alone leaves only mp4', async () => {
    const upstreams = writeUpstreamsFile(
      {
        'vidA-2-5': [
          { provider: 'queue-webm', type: 'fal-queue', url: 'http://127.0.0.1:9', formats: { video: ['mp4', 'webm'] } },
        ],
        'vidK-3-0': [
          { provider: 'queue-mp4', type: 'fal-queue', url: 'http://127.0.0.1:9', formats: { video: ['mp4'] } },
        ],
      },
      { sandboxDefault: true },
    );
    const routed = await startHarness({ UPSTREAMS_FILE: upstreams });
    try {
      const rows = new Map(
        expectNativeOk(await call(routed.baseUrl, 'GET', '/v1/llm/models/catalog')).models.map(
          (m: { slug: string; capabilities: { output_formats?: string[] } }) => [m.slug, m.capabilities.output_formats],
        ),
      );
      expect(rows.get('vidA-2-5')).toEqual(['mp4', 'webm']);
      expect(rows.get('vidK-3-0')).toEqual(['mp4']);
    } finally {
      await routed.close();
      removeUpstreamsFiles();
    }
  });
});

describe('availability follows the routes', () => {
  it('a disabled, an unrouted and a keyless model show available: false with the reason, leave the compat list, and still answer their own codes; sandbox-served rows say so', async () => {
    const upstreams = writeUpstreamsFile(
      {
        'gpt-5-nano': [],
        'text-embedding-3-small': [{ provider: 'keyless', url: 'http://127.0.0.1:9', apiKeyEnv: 'CGW_TEST_UNSET_KEY' }],
      },
      { sandboxDefault: true, disabledModels: ['gpt-5-mini'] },
    );
    const routed = await startHarness({ UPSTREAMS_FILE: upstreams });
    try {
      const rows = expectNativeOk(await call(routed.baseUrl, 'GET', '/v1/llm/models/catalog')).models as {
        slug: string;
        available: boolean;
        unavailable_reason: string | null;
        sandbox: boolean;
      }[];
      const row = (slug: string) => rows.find((r) => r.slug === slug)!;
      expect(row('gpt-5-mini')).toMatchObject({
        available: false,
        unavailable_reason: expect.stringMatching(/disabled/),
      });
      expect(row('gpt-5-nano')).toMatchObject({
        available: false,
        unavailable_reason: expect.stringMatching(/No route serves/),
      });
      expect(row('text-embedding-3-small')).toMatchObject({
        available: false,
        unavailable_reason: expect.stringMatching(/credentials/),
      });
      expect(row('text-embedding-3-large')).toMatchObject({ available: true, unavailable_reason: null, sandbox: true });
      expect(row('text-embedding-3-small').sandbox).toBe(false);
      const { apiKey } = await routed.newAccount(undefined, { balanceUsd: 10 });
      const listed = (await call(routed.baseUrl, 'GET', '/v1/compat/models', { key: apiKey })).body.data.map(
        (m: { id: string }) => m.id,
      );
      for (const slug of ['gpt-5-mini', 'gpt-5-nano', 'text-embedding-3-small']) expect(listed).not.toContain(slug);
      expect(listed).toContain('text-embedding-3-large');
      const chat = (model: string) =>
        call(routed.baseUrl, 'POST', '/v1/compat/chat/completions', {
          key: apiKey,
          body: { model, messages: [{ role: 'user', content: 'hi' }] },
        });
      expectCompatError(await chat('gpt-5-mini'), 503, 'model_disabled');
      expectCompatError(await chat('gpt-5-nano'), 400, 'no_provider_available');
      expectCompatError(
        await call(routed.baseUrl, 'POST', '/v1/compat/embeddings', {
          key: apiKey,
          body: { model: 'text-embedding-3-small', input: 'x' },
        }),
        503,
        'gateway_misconfigured',
      );
    } finally {
      await routed.close();
      removeUpstreamsFiles();
    }
  });
});

describe('the external tier: listed, and answering its availability code, never model_not_found', () => {
  const user = [{ role: 'user', content: 'hi' }];

  it('every external id of /v1/compat/models answers 400 no_provider_available on chat, nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const external: string[] = expectNativeOk(await catalog()).external_models;
    const listed = (await call(h.baseUrl, 'GET', '/v1/compat/models', { key: apiKey })).body.data.map(
      (m: { id: string }) => m.id,
    );
    for (const id of external) {
      expect(listed).toContain(id);
      const response = await call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
        key: apiKey,
        body: { model: id, messages: user },
      });
      expectCompatError(response, 400, 'no_provider_available');
      expect(response.body.error.meta).toMatchObject({ slug: id, hint: expect.stringMatching(/External-tier/) });
    }
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it('the same verdict on every surface that takes a model; one named in disabled_models answers 503 model_disabled', async () => {
    const [disabled, unrouted] = h.deps.catalog.view(null).external_models as [string, string];
    const routed = await startHarness({
      UPSTREAMS_FILE: writeUpstreamsFile({}, { sandboxDefault: true, disabledModels: [disabled] }),
    });
    try {
      const { apiKey } = await routed.newAccount(undefined, { balanceUsd: 10 });
      const post = (path: string, body: Record<string, unknown>) =>
        call(routed.baseUrl, 'POST', path, { key: apiKey, body });
      expectCompatError(
        await post('/v1/compat/chat/completions', { model: disabled, messages: user }),
        503,
        'model_disabled',
      );
      expectCompatError(
        await post('/v1/compat/chat/completions', { model: unrouted, messages: user, stream: true }),
        400,
        'no_provider_available',
      );
      expectNativeError(
        await post('/v1/llm/chat/completions', { model: unrouted, messages: user }),
        400,
        'no_provider_available',
      );
      expectCompatError(
        await post('/v1/compat/embeddings', { model: unrouted, input: 'x' }),
        400,
        'no_provider_available',
      );
      expect((await post('/v1/responses', { model: unrouted, input: 'hi' })).body.error.code).toBe(
        'no_provider_available',
      );
    } finally {
      await routed.close();
      removeUpstreamsFiles();
    }
  });
});

/** GET /v1/llm/topaz/models (SPEC 4.3): the live restoration catalog with its price per credit. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/llm/topaz/models', () => {
  it('lists every restoration model: what it restores, $0.14 a credit, how credits count, callable on the sandbox', async () => {
    const { apiKey } = await h.newAccount();
    const { models } = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/topaz/models', { key: apiKey }));
    expect(models).toHaveLength(14);
    expect(models.filter((m: { media: string }) => m.media === 'image')).toHaveLength(7);
    expect(models.find((m: { slug: string }) => m.slug === 'topaz-gigapixel-standard')).toMatchObject({
      media: 'image',
      usd_per_credit: 0.14,
      discounted_usd_per_credit: 0.14,
      credit_rule: expect.stringMatching(/24 megapixels/),
      output_formats: ['png', 'jpeg', 'tiff'],
      available: true,
      unavailable_reason: null,
    });
    expect(models.find((m: { slug: string }) => m.slug === 'topaz-video-proteus')).toMatchObject({
      media: 'video',
      resolutions: ['1080p', '4k'],
      available: true,
    });
  });

  it('401 without a key', async () => {
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/llm/topaz/models'), 401, 'authentication_required');
  });
});

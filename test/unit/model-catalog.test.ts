import { describe, expect, it } from 'vitest';
import type { CatalogFile } from '../../src/domain/catalog/catalog-file.js';
import { ModelCatalog } from '../../src/domain/catalog/model-catalog.js';
import { CATALOG_ENTRY_FIELDS, catalogRow } from '../setup/catalog-rows.js';

const row = catalogRow;

const TEXT = row({
  slug: 'txt-a',
  media_kind: 'text',
  category: 'fast',
  retail_input_usd_per_mtok: 2.5,
  retail_output_usd_per_mtok: 10.000005,
  retail_cached_input_usd_per_mtok: 0.000015,
  tokens_per_sec: 80,
  capabilities: { context_tokens: 128_000, max_output_tokens: 16_384 },
  aliases: ['txt-a-latest', 'acme/txt-a'],
  created: 1_730_000_000,
  owned_by: 'acme-labs',
});

const IMAGE = row({
  slug: 'img-b',
  media_kind: 'image',
  retail_usd_per_image: 0.0464,
  pricing: { '1K': 0.0464, '2K': 0.07, '4K': 0.11 },
  discounted: true,
  discount_percent_label: 20,
  capabilities: { sizes: ['1024x1024'], max_reference_images: 4 },
  created: 1_740_000_000,
  owned_by: 'pixels',
});

const VIDEO_OFF = row({
  slug: 'vid-c',
  media_kind: 'video',
  retail_usd_per_unit: 0.5,
  retail_usd_per_image: 0.5,
  video_billing_unit: 'second',
  available: false,
  unavailable_reason: 'No route serves this model',
  aliases: ['vid-c-old'],
});

function file(): CatalogFile {
  return {
    default_model: 'txt-a',
    external_models: [{ id: 'ext/model-x', created: 1_720_000_000, owned_by: 'ext-vendor' }],
    models: [structuredClone(TEXT), structuredClone(IMAGE), structuredClone(VIDEO_OFF)],
  };
}

const rowOf = (body: ReturnType<ModelCatalog['view']>, slug: string) => {
  const found = body.models.find((m) => m.slug === slug);
  if (found === undefined) throw new Error(`no row ${slug}`);
  return found;
};

describe('ModelCatalog.find', () => {
  const catalog = new ModelCatalog(file());

  it.each<[string, string | undefined]>([
    ['txt-a', 'txt-a'],
    ['txt-a-latest', 'txt-a'],
    ['acme/txt-a', 'txt-a'],
    ['img-b', 'img-b'],
    ['vid-c', 'vid-c'], // unavailable rows are still found (the caller decides what to answer)
    ['vid-c-old', 'vid-c'],
    ['TXT-A', undefined], // slugs are exact
    ['txt-a ', undefined],
    ['ext/model-x', undefined], // the external tier has no native row
    ['', undefined],
  ])('%j → %s', (name, slug) => {
    expect(catalog.find(name)?.slug).toBe(slug);
  });

  it('an alias resolves to the very same row as the slug', () => {
    expect(catalog.find('txt-a-latest')).toBe(catalog.find('txt-a'));
  });

  it('knows its default model and size', () => {
    expect(catalog.defaultModel).toBe('txt-a');
    expect(catalog.size).toBe(3);
  });
});

describe('ModelCatalog.view(null): the public catalog', () => {
  const source = file();
  const catalog = new ModelCatalog(source);
  const body = catalog.view(null);

  it('has default_model, the external ids and one row per model in file order', () => {
    expect(body.default_model).toBe('txt-a');
    expect(body.external_models).toEqual(['ext/model-x']);
    expect(body.models.map((m) => m.slug)).toEqual(['txt-a', 'img-b', 'vid-c']);
  });

  it('each row has exactly the contract fields: no created/owned_by, plus the per-caller fields at zero and sandbox false until the routes say', () => {
    for (const model of body.models) {
      expect(Object.keys(model).sort()).toEqual(CATALOG_ENTRY_FIELDS);
      expect(model.user_discount_percent).toBe(0);
      expect(model.user_tier_discounts).toEqual({});
    }
  });

  it('prices are the file prices', () => {
    for (const [slug, fileRow] of [
      ['txt-a', TEXT],
      ['img-b', IMAGE],
      ['vid-c', VIDEO_OFF],
    ] as const) {
      const { created: _c, owned_by: _o, ...rest } = fileRow;
      expect(rowOf(body, slug)).toEqual({ ...rest, user_discount_percent: 0, user_tier_discounts: {}, sandbox: false });
    }
  });

  it('is precomputed: the same object on every call, also for a caller without discounts', () => {
    expect(catalog.view(null)).toBe(body);
    expect(catalog.view({ discountPercent: 0, tierDiscounts: {} })).toBe(body);
  });
});

describe('ModelCatalog.view with discounts (SPEC 2.5 user_discount_percent, user_tier_discounts)', () => {
  const catalog = new ModelCatalog(file());
  const body = catalog.view({ discountPercent: 10, tierDiscounts: { '4K': 25, '2K': 10, '8K': 50 } });

  it('text prices are 10 % off, exactly (issue 24: not rounded to 6 decimals); null prices stay null', () => {
    const text = rowOf(body, 'txt-a');
    expect(text.retail_input_usd_per_mtok).toBe(2.25);
    expect(text.retail_output_usd_per_mtok).toBe(9.0000045);
    expect(text.retail_cached_input_usd_per_mtok).toBe(0.0000135);
    expect(text.retail_usd_per_image).toBeNull();
    expect(text.retail_usd_per_unit).toBeNull();
    expect(text.usd_per_credit).toBeNull();
    expect(text.pricing).toBeNull();
    expect(text.user_discount_percent).toBe(10);
    expect(text.user_tier_discounts).toEqual({}); // no pricing tiers on this row
  });

  it('tiers take their own discount where set, the flat one elsewhere', () => {
    const image = rowOf(body, 'img-b');
    expect(image.retail_usd_per_image).toBe(0.04176);
    expect(image.pricing).toEqual({ '1K': 0.04176, '2K': 0.063, '4K': 0.0825 });
    expect(image.user_discount_percent).toBe(10);
    // 2K equals the flat percent and 8K is not a tier of this row: neither is listed.
    expect(image.user_tier_discounts).toEqual({ '4K': 25 });
  });

  it('unavailable rows are discounted too and keep their reason', () => {
    const video = rowOf(body, 'vid-c');
    expect(video.retail_usd_per_unit).toBe(0.45);
    expect(video.retail_usd_per_image).toBe(0.45);
    expect(video.available).toBe(false);
    expect(video.unavailable_reason).toBe('No route serves this model');
  });

  it('everything that is not a price is as in the public view', () => {
    const publicBody = catalog.view(null);
    const strip = (m: (typeof body.models)[number]) => {
      const {
        retail_input_usd_per_mtok,
        retail_output_usd_per_mtok,
        retail_cached_input_usd_per_mtok,
        retail_usd_per_image,
        retail_usd_per_unit,
        usd_per_credit,
        pricing,
        user_discount_percent,
        user_tier_discounts,
        ...rest
      } = m;
      return rest;
    };
    expect(body.models.map(strip)).toEqual(publicBody.models.map(strip));
    expect(body.default_model).toBe(publicBody.default_model);
    expect(body.external_models).toEqual(publicBody.external_models);
  });

  it('does not change the public view or the file', () => {
    const source = file();
    const fresh = new ModelCatalog(source);
    const before = structuredClone(fresh.view(null));
    fresh.view({ discountPercent: 50, tierDiscounts: { '1K': 100 } });
    expect(fresh.view(null)).toEqual(before);
    expect(source).toEqual(file());
  });

  it.each<[number, Record<string, number>, Record<string, number>, number, Record<string, number>]>([
    [7.5, {}, { '1K': 0.04292, '2K': 0.06475, '4K': 0.10175 }, 0.04292, {}],
    [0, { '4K': 25 }, { '1K': 0.0464, '2K': 0.07, '4K': 0.0825 }, 0.0464, { '4K': 25 }],
    [10, { '1K': 0 }, { '1K': 0.0464, '2K': 0.063, '4K': 0.099 }, 0.04176, { '1K': 0 }],
    [100, {}, { '1K': 0, '2K': 0, '4K': 0 }, 0, {}],
    [20, { '2K': 100, '4K': 20 }, { '1K': 0.03712, '2K': 0, '4K': 0.088 }, 0.03712, { '2K': 100 }],
  ])(
    'flat %s %% with tiers %j → pricing %j, per image %s, user_tier_discounts %j',
    (percent, tiers, pricing, perImage, listed) => {
      const image = rowOf(catalog.view({ discountPercent: percent, tierDiscounts: tiers }), 'img-b');
      expect(image.pricing).toEqual(pricing);
      expect(image.retail_usd_per_image).toBe(perImage);
      expect(image.user_discount_percent).toBe(percent);
      expect(image.user_tier_discounts).toEqual(listed);
    },
  );

  it('a tier-only discount leaves the flat prices alone', () => {
    const text = rowOf(catalog.view({ discountPercent: 0, tierDiscounts: { '4K': 25 } }), 'txt-a');
    expect(text.retail_input_usd_per_mtok).toBe(2.5);
    expect(text.retail_output_usd_per_mtok).toBe(10.000005);
    expect(text.user_tier_discounts).toEqual({});
  });
});

describe('ModelCatalog.compatModels (SPEC 2.5, GET /v1/compat/models)', () => {
  const catalog = new ModelCatalog(file());

  it('lists available native rows, then the external tier, with created and owned_by; never the unavailable row', () => {
    expect(catalog.compatModels()).toEqual({
      object: 'list',
      data: [
        { id: 'txt-a', object: 'model', created: 1_730_000_000, owned_by: 'acme-labs' },
        { id: 'img-b', object: 'model', created: 1_740_000_000, owned_by: 'pixels' },
        { id: 'ext/model-x', object: 'model', created: 1_720_000_000, owned_by: 'ext-vendor' },
      ],
    });
  });

  it('lists neither aliases nor the unavailable row', () => {
    const ids = catalog.compatModels().data.map((m) => m.id);
    for (const absent of ['vid-c', 'vid-c-old', 'txt-a-latest', 'acme/txt-a']) expect(ids).not.toContain(absent);
  });

  it('is precomputed: the same object on every call', () => {
    expect(catalog.compatModels()).toBe(catalog.compatModels());
  });
});

/**
 * Checks the hand-curated model catalog data (config/catalog.json) against SPEC 2.5, 2.9, 2.11, 2.12, 4.6 and 8
 * and against the OpenAPI schemas CatalogEntry.yaml / Capabilities.yaml.
 */

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ImageTokenRuleSchema } from '../../src/domain/text/image-tokens.js';

type Num = number | null;

interface Capabilities {
  context_tokens?: number;
  max_output_tokens?: number;
  input_modalities?: string[];
  supports_tools?: boolean;
  supports_streaming?: boolean;
  max_input_items?: number;
  max_input_tokens?: number;
  embedding_dimensions?: number;
  accepts_dimensions?: boolean;
  max_reference_images?: number;
  edit_only?: boolean;
  sizes?: string[];
  aspect_ratios?: string[];
  resolutions?: string[];
  durations?: number[];
  duration_range?: { min: number; max: number };
  modes?: string[];
  audio?: boolean;
  output_formats?: string[];
  image_to_video_only?: boolean;
  motion_control?: boolean;
  reference_to_video?: boolean;
  draft?: boolean;
  voices?: string[];
  default_voice?: string;
  max_characters?: number;
}

interface Entry {
  slug: string;
  label: string;
  description: string;
  provider: string;
  category: string;
  media_kind: string;
  created: number;
  owned_by: string;
  retail_input_usd_per_mtok: Num;
  retail_output_usd_per_mtok: Num;
  retail_cached_input_usd_per_mtok: Num;
  retail_usd_per_image: Num;
  retail_usd_per_unit: Num;
  video_billing_unit: string | null;
  audio_billing_unit: string | null;
  pricing: Record<string, number> | null;
  discounted: boolean;
  discount_percent_label: Num;
  tokens_per_sec: Num;
  tokens_per_sec_approx: boolean;
  credit_metered: boolean;
  usd_per_credit: Num;
  capabilities: Capabilities;
  available: boolean;
  unavailable_reason: string | null;
  aliases: string[];
}

interface ExternalModel {
  id: string;
  created: number;
  owned_by: string;
}

interface CatalogFile {
  default_model: string;
  external_models: ExternalModel[];
  models: Entry[];
}

const raw = readFileSync(new URL('../../config/catalog.json', import.meta.url), 'utf8');
const catalog = JSON.parse(raw) as CatalogFile;
const models = catalog.models;
const bySlug = new Map(models.map((m) => [m.slug, m]));

function get(slug: string): Entry {
  const m = bySlug.get(slug);
  if (!m) throw new Error(`catalog has no row ${slug}`);
  return m;
}

const ofKind = (kind: string) => models.filter((m) => m.media_kind === kind);
const generative = (kind: string) => ofKind(kind).filter((m) => !m.credit_metered);

const ENTRY_KEYS = [
  'slug',
  'label',
  'description',
  'provider',
  'category',
  'media_kind',
  'created',
  'owned_by',
  'retail_input_usd_per_mtok',
  'retail_output_usd_per_mtok',
  'retail_cached_input_usd_per_mtok',
  'retail_usd_per_image',
  'retail_usd_per_unit',
  'video_billing_unit',
  'audio_billing_unit',
  'pricing',
  'discounted',
  'discount_percent_label',
  'tokens_per_sec',
  'tokens_per_sec_approx',
  'credit_metered',
  'usd_per_credit',
  'capabilities',
  'available',
  'unavailable_reason',
  'aliases',
];
/** Stored in the data file only; the service computes the per-caller fields and serves `created`/`owned_by` on /v1/compat/models. */
const DATA_ONLY_KEYS = ['created', 'owned_by'];
/** Fields the gateway adds as it serves a row: the caller's discounts, and what the routes say. */
const SERVED_ONLY_KEYS = ['user_discount_percent', 'user_tier_discounts', 'sandbox'];

const CATEGORIES = ['flagship', 'reasoning', 'balanced', 'fast'];
const MEDIA_KINDS = ['text', 'image', 'video', 'music', 'audio', 'embedding', 'rerank'];
const UNKNOWN_CREATED = 1735689600;
const PRICE_FIELDS = [
  'retail_input_usd_per_mtok',
  'retail_output_usd_per_mtok',
  'retail_cached_input_usd_per_mtok',
  'retail_usd_per_image',
  'retail_usd_per_unit',
] as const;

const REQUIRED_SLUGS = [
  // retrieval (SPEC 2.9)
  'text-embedding-3-large',
  'text-embedding-3-small',
  'text-embedding-ada-002',
  'alpha-embedding-001',
  'alpha-embedding-2-preview',
  'qwen3-rerank',
  'qwen3-reranker-0.6b',
  'bge-reranker-v2-m3',
  'bge-reranker-v2-m3-pro',
  'bce-reranker-base-v1',
  // image (SPEC 2.11, 4.6)
  'imgG-2',
  'imgG-2-2k',
  'imgG-2-4k',
  'imgG-1-5',
  'imgG-4o',
  'imgN-pro',
  'imgN-pro-4k',
  'imgG-2-5-flash',
  'imgG-2-5-flash-2k',
  'imgG-2-5-flash-4k',
  'imgG-2-5-pro',
  'imgG-2-5-pro-2k',
  'imgG-2-5-pro-4k',
  'flux-kontext-pro',
  'flux-kontext-max',
  'wan-2-7-image',
  'wan-2-7-image-pro',
  'flux-2-pro',
  'flux-2-flex',
  // video (SPEC 2.12, 4.6, 8)
  'vidA-2-5',
  'vidA-2-5-fast',
  'vidA-2-5-mini',
  'vidA-2',
  'vidV-3-1-fast',
  'vidV-3-1-pro',
];

/** Vendor list price per million input tokens; the catalog sells these 20% below (SPEC 4.6). */
const RETRIEVAL_VENDOR_LIST: Record<string, number> = {
  'text-embedding-3-large': 0.13,
  'text-embedding-3-small': 0.02,
  'text-embedding-ada-002': 0.1,
  'alpha-embedding-001': 0.15,
  'alpha-embedding-2-preview': 0.2,
  'qwen3-rerank': 0.1,
  'qwen3-reranker-0.6b': 0.02,
  'bge-reranker-v2-m3': 0.01,
  'bge-reranker-v2-m3-pro': 0.02,
  'bce-reranker-base-v1': 0.01,
};

const EMBEDDINGS: Record<string, { dims: number; accepts: boolean }> = {
  'text-embedding-3-large': { dims: 3072, accepts: true },
  'text-embedding-3-small': { dims: 1536, accepts: true },
  'text-embedding-ada-002': { dims: 1536, accepts: false },
  'alpha-embedding-001': { dims: 3072, accepts: false },
  'alpha-embedding-2-preview': { dims: 3072, accepts: false },
};
const RERANKERS = [
  'qwen3-rerank',
  'qwen3-reranker-0.6b',
  'bge-reranker-v2-m3',
  'bge-reranker-v2-m3-pro',
  'bce-reranker-base-v1',
];

const LADDER = { '1K': 0.0464, '2K': 0.07, '4K': 0.11 };
const EXTRA_25_ASPECTS = ['27:16', '16:27', '9:8', '8:9'];

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;
const sorted = (xs: Iterable<string>) => [...xs].sort();

function schemaProperties(file: string): { properties: string[]; required: string[] } {
  const doc = parse(readFileSync(new URL(`../../openapi/components/schemas/${file}`, import.meta.url), 'utf8')) as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  return { properties: Object.keys(doc.properties ?? {}), required: doc.required ?? [] };
}

describe('catalog.json: file shape', () => {
  it('is 2-space-indented JSON with exactly default_model, external_models and models', () => {
    expect(raw.startsWith('{\n  "default_model": ')).toBe(true);
    expect(raw).not.toMatch(/\t/);
    expect(raw.endsWith('}\n')).toBe(true);
    expect(Object.keys(catalog)).toEqual(['default_model', 'external_models', 'models']);
  });

  it('serves at least 370 models (SPEC 1.8)', () => {
    expect(models.length).toBeGreaterThanOrEqual(370);
  });

  it('gives every entry exactly the listed keys, in order', () => {
    // image_tokens is optional (vision rows whose vendor publishes its image rule), right after owned_by.
    for (const m of models)
      expect(
        Object.keys(m).filter((k) => k !== 'image_tokens'),
        m.slug,
      ).toEqual(ENTRY_KEYS);
    for (const m of models.filter((row) => 'image_tokens' in row))
      expect(Object.keys(m).indexOf('image_tokens'), m.slug).toBe(ENTRY_KEYS.indexOf('owned_by') + 1);
  });

  it('gives image_tokens (the vendor image rule, with its source) only to rows that take images', () => {
    const ruled = models.filter((m) => 'image_tokens' in m);
    expect(ruled.map((m) => m.slug)).toEqual(
      expect.arrayContaining(['gpt-4o', 'gpt-4o-mini', 'gpt-5-mini', 'claude-sonnet-4-5']),
    );
    for (const m of ruled) {
      expect(m.capabilities.input_modalities, m.slug).toContain('image');
      expect(ImageTokenRuleSchema.safeParse((m as { image_tokens?: unknown }).image_tokens).success, m.slug).toBe(true);
    }
  });

  it('keeps the entry keys in step with CatalogEntry.yaml', () => {
    const schema = schemaProperties('CatalogEntry.yaml');
    const expected = sorted([...schema.properties.filter((k) => !SERVED_ONLY_KEYS.includes(k)), ...DATA_ONLY_KEYS]);
    expect(sorted(ENTRY_KEYS)).toEqual(expected);
    for (const k of schema.required) {
      if (!SERVED_ONLY_KEYS.includes(k)) expect(ENTRY_KEYS).toContain(k);
    }
  });

  it('uses only capability keys that Capabilities.yaml allows', () => {
    const allowed = new Set(schemaProperties('Capabilities.yaml').properties);
    expect(allowed.size).toBeGreaterThan(10);
    for (const m of models) {
      for (const k of Object.keys(m.capabilities)) expect(allowed.has(k), `${m.slug}: capabilities.${k}`).toBe(true);
    }
  });

  it('contains every slug the spec names', () => {
    const missing = REQUIRED_SLUGS.filter((s) => !bySlug.has(s));
    expect(missing).toEqual([]);
  });
});

describe('catalog.json: identity, naming and aliases', () => {
  it('has unique slugs in lowercase kebab form (neutral family words keep their casing)', () => {
    expect(new Set(models.map((m) => m.slug)).size).toBe(models.length);
    for (const m of models) {
      const body = m.slug.replace(/^(imgG|imgN|vidA|vidK|vidV)(?=-|$)/, 'x');
      expect(body, m.slug).toMatch(/^[a-z0-9]+(?:[.-][a-z0-9]+)*$/);
    }
  });

  it('has non-empty text fields and plausible release times', () => {
    for (const m of models) {
      for (const k of ['label', 'description', 'provider', 'owned_by'] as const) {
        expect(typeof m[k], `${m.slug}.${k}`).toBe('string');
        expect(m[k].trim().length, `${m.slug}.${k}`).toBeGreaterThan(0);
      }
      expect(Number.isInteger(m.created), m.slug).toBe(true);
      expect(m.created, m.slug).toBeGreaterThan(1_600_000_000);
      expect(m.created, m.slug).toBeLessThan(1_830_000_000);
    }
    expect(models.some((m) => m.created === UNKNOWN_CREATED)).toBe(true);
  });

  it('has globally unique aliases that never equal a slug', () => {
    const slugs = new Set(models.map((m) => m.slug));
    const seen = new Map<string, string>();
    for (const m of models) {
      expect(Array.isArray(m.aliases), m.slug).toBe(true);
      for (const a of m.aliases) {
        expect(typeof a).toBe('string');
        expect(a.length).toBeGreaterThan(0);
        expect(slugs.has(a), `alias ${a} of ${m.slug} is a slug`).toBe(false);
        expect(seen.get(a), `alias ${a} on ${m.slug} and ${seen.get(a)}`).toBeUndefined();
        seen.set(a, m.slug);
      }
    }
    expect(seen.size).toBeGreaterThan(models.length / 2);
    expect(get('imgG-1-5').aliases).toContain('imgG-1.5');
  });

  it('names an available text model as default_model', () => {
    const d = get(catalog.default_model);
    expect(d.media_kind).toBe('text');
    expect(d.available).toBe(true);
  });

  it('lists 20-40 external ids in vendor/model form, disjoint from native slugs and aliases', () => {
    const ext = catalog.external_models;
    expect(ext.length).toBeGreaterThanOrEqual(20);
    expect(ext.length).toBeLessThanOrEqual(40);
    const native = new Set(models.flatMap((m) => [m.slug, ...m.aliases]));
    expect(new Set(ext.map((e) => e.id)).size).toBe(ext.length);
    for (const e of ext) {
      expect(Object.keys(e)).toEqual(['id', 'created', 'owned_by']);
      expect(e.id).toMatch(/^[a-z0-9][a-z0-9._-]*\/[a-z0-9][a-z0-9._-]*$/i);
      expect(e.id).not.toMatch(/:/); // routing variants are never listed
      expect(native.has(e.id), e.id).toBe(false);
      expect(Number.isInteger(e.created)).toBe(true);
      expect(e.owned_by.length).toBeGreaterThan(0);
    }
  });
});

describe('catalog.json: categories, kinds, availability, discounts', () => {
  it('uses only the spec enums and covers every media_kind and, among text, every category', () => {
    for (const m of models) {
      expect(CATEGORIES, m.slug).toContain(m.category);
      expect(MEDIA_KINDS, m.slug).toContain(m.media_kind);
    }
    for (const k of MEDIA_KINDS) expect(ofKind(k).length, k).toBeGreaterThan(0);
    expect(sorted(new Set(ofKind('text').map((m) => m.category)))).toEqual(sorted(CATEGORIES));
    for (const k of ['image', 'video', 'music', 'audio']) {
      expect(new Set(ofKind(k).map((m) => m.category)).size, k).toBeGreaterThanOrEqual(3);
    }
  });

  it('marks a handful of rows unavailable, each with a reason', () => {
    const off = models.filter((m) => !m.available);
    expect(off.length).toBeGreaterThan(0);
    expect(off.length).toBeLessThan(models.length * 0.05);
    for (const m of models) {
      if (m.available) expect(m.unavailable_reason, m.slug).toBeNull();
      else expect(m.unavailable_reason?.trim().length ?? 0, m.slug).toBeGreaterThan(0);
    }
  });

  it('keeps discount labels between 7.5% and 30% and only on discounted rows (SPEC 4.6)', () => {
    for (const m of models) {
      if (m.discounted) {
        expect(m.discount_percent_label, m.slug).not.toBeNull();
        expect(m.discount_percent_label!, m.slug).toBeGreaterThanOrEqual(7.5);
        expect(m.discount_percent_label!, m.slug).toBeLessThanOrEqual(30);
      } else {
        expect(m.discount_percent_label, m.slug).toBeNull();
      }
    }
  });

  it('writes every price as a plain non-negative decimal with at most 6 decimal places', () => {
    const check = (slug: string, field: string, v: unknown) => {
      if (v === null) return;
      expect(typeof v, `${slug}.${field}`).toBe('number');
      const n = v as number;
      expect(Number.isFinite(n) && n >= 0, `${slug}.${field}`).toBe(true);
      expect(String(n), `${slug}.${field}`).toMatch(/^\d+(\.\d{1,6})?$/);
    };
    for (const m of models) {
      for (const f of PRICE_FIELDS) check(m.slug, f, m[f]);
      check(m.slug, 'usd_per_credit', m.usd_per_credit);
      if (m.pricing !== null) {
        expect(Object.keys(m.pricing).length, m.slug).toBeGreaterThan(0);
        for (const [tier, v] of Object.entries(m.pricing)) check(m.slug, `pricing.${tier}`, v);
      }
    }
  });

  it('meters credits only on topaz restoration rows, at $0.14 per credit (SPEC 4.6, 8)', () => {
    const credit = models.filter((m) => m.credit_metered);
    expect(credit.some((m) => m.media_kind === 'image')).toBe(true);
    expect(credit.some((m) => m.media_kind === 'video')).toBe(true);
    for (const m of models) {
      if (m.credit_metered) {
        expect(m.slug).toMatch(/^topaz-/);
        expect(['image', 'video']).toContain(m.media_kind);
        expect(m.usd_per_credit, m.slug).toBe(0.14);
      } else {
        expect(m.slug).not.toMatch(/^topaz-/);
        expect(m.usd_per_credit, m.slug).toBeNull();
      }
    }
  });
});

describe('catalog.json: text rows', () => {
  const text = ofKind('text');

  it('carries token prices, context and output caps, and an estimated throughput', () => {
    for (const m of text) {
      const inP = m.retail_input_usd_per_mtok;
      const outP = m.retail_output_usd_per_mtok;
      const cached = m.retail_cached_input_usd_per_mtok;
      expect(inP, m.slug).not.toBeNull();
      expect(outP, m.slug).not.toBeNull();
      expect(cached, m.slug).not.toBeNull();
      expect(cached!, m.slug).toBeLessThanOrEqual(inP!);
      expect(inP!, m.slug).toBeLessThanOrEqual(outP!);
      expect(outP!, m.slug).toBeGreaterThan(0);
      for (const f of [
        'retail_usd_per_image',
        'retail_usd_per_unit',
        'video_billing_unit',
        'audio_billing_unit',
        'pricing',
      ] as const) {
        expect(m[f], `${m.slug}.${f}`).toBeNull();
      }
      const c = m.capabilities;
      expect(Number.isInteger(c.context_tokens), m.slug).toBe(true);
      expect(Number.isInteger(c.max_output_tokens), m.slug).toBe(true);
      expect(c.max_output_tokens!, m.slug).toBeGreaterThan(0);
      expect(c.max_output_tokens!, m.slug).toBeLessThanOrEqual(c.context_tokens!);
      expect(c.input_modalities, m.slug).toContain('text');
      expect(typeof c.supports_tools, m.slug).toBe('boolean');
      expect(c.supports_streaming, m.slug).toBe(true);
      expect(m.tokens_per_sec!, m.slug).toBeGreaterThan(0);
      expect(m.tokens_per_sec_approx, m.slug).toBe(true);
      expect(m.credit_metered, m.slug).toBe(false);
    }
  });

  it('never lists embedding or rerank models among chat models', () => {
    const retrieval = new Set([...Object.keys(EMBEDDINGS), ...RERANKERS]);
    for (const m of text) expect(retrieval.has(m.slug), m.slug).toBe(false);
  });

  it('has no throughput on non-text rows', () => {
    for (const m of models.filter((x) => x.media_kind !== 'text')) {
      expect(m.tokens_per_sec, m.slug).toBeNull();
      expect(m.tokens_per_sec_approx, m.slug).toBe(false);
    }
  });
});

describe('catalog.json: embedding and rerank rows (SPEC 2.9, 8)', () => {
  it('holds exactly the five embedding models with their vector sizes', () => {
    expect(sorted(ofKind('embedding').map((m) => m.slug))).toEqual(sorted(Object.keys(EMBEDDINGS)));
    for (const [slug, want] of Object.entries(EMBEDDINGS)) {
      const c = get(slug).capabilities;
      expect(c.embedding_dimensions, slug).toBe(want.dims);
      expect(c.accepts_dimensions, slug).toBe(want.accepts);
      expect(Number.isInteger(c.max_input_items), slug).toBe(true);
      expect(Number.isInteger(c.max_input_tokens), slug).toBe(true);
    }
    for (const slug of ['text-embedding-3-large', 'text-embedding-3-small']) {
      expect(get(slug).capabilities.max_input_items).toBe(2048);
      expect(get(slug).capabilities.max_input_tokens).toBe(8192);
    }
  });

  it('holds exactly the five rerank models', () => {
    expect(sorted(ofKind('rerank').map((m) => m.slug))).toEqual(sorted(RERANKERS));
  });

  it('prices retrieval per input Mtok at 20% below vendor list, with no output or media price', () => {
    const rows = [...ofKind('embedding'), ...ofKind('rerank')];
    expect(rows).toHaveLength(10);
    for (const m of rows) {
      const list = RETRIEVAL_VENDOR_LIST[m.slug];
      expect(list, m.slug).toBeDefined();
      expect(m.retail_input_usd_per_mtok, m.slug).toBe(round6(list! * 0.8));
      expect(m.discounted, m.slug).toBe(true);
      expect(m.discount_percent_label, m.slug).toBe(20);
      for (const f of [
        'retail_output_usd_per_mtok',
        'retail_cached_input_usd_per_mtok',
        'retail_usd_per_image',
        'retail_usd_per_unit',
        'video_billing_unit',
        'audio_billing_unit',
        'pricing',
      ] as const) {
        expect(m[f], `${m.slug}.${f}`).toBeNull();
      }
    }
    expect(get('text-embedding-3-small').retail_input_usd_per_mtok).toBe(0.016);
  });
});

describe('catalog.json: image rows (SPEC 2.11, 4.6)', () => {
  const images = generative('image');

  it('prices every generative image row per image, with pricing tiers drawn from the same ladder', () => {
    for (const m of ofKind('image')) {
      expect(m.video_billing_unit, m.slug).toBeNull();
      expect(m.audio_billing_unit, m.slug).toBeNull();
      expect(m.retail_input_usd_per_mtok, m.slug).toBeNull();
      expect(m.retail_usd_per_unit, m.slug).toBeNull();
    }
    for (const m of images) {
      expect(m.retail_usd_per_image!, m.slug).toBeGreaterThan(0);
      if (m.pricing) expect(Object.values(m.pricing), m.slug).toContain(m.retail_usd_per_image);
      expect(m.capabilities.output_formats, m.slug).toEqual(expect.arrayContaining(['png', 'jpeg', 'webp']));
    }
  });

  it('bills the imgG-2 ladder 1K $0.0464, 2K $0.07, 4K $0.11 with tier SKUs', () => {
    expect(get('imgG-2').pricing).toEqual(LADDER);
    expect(get('imgG-2').retail_usd_per_image).toBe(0.0464);
    expect(get('imgG-2-2k').retail_usd_per_image).toBe(0.07);
    expect(get('imgG-2-4k').retail_usd_per_image).toBe(0.11);
  });

  it('gives the 2.5 generation the same ladder, with the four extra aspects on the base 1K SKU only', () => {
    for (const v of ['flash', 'pro']) {
      const base = get(`imgG-2-5-${v}`);
      expect(base.pricing).toEqual(LADDER);
      expect(base.retail_usd_per_image).toBe(0.0464);
      expect(base.capabilities.aspect_ratios).toEqual(expect.arrayContaining(EXTRA_25_ASPECTS));
      expect(get(`imgG-2-5-${v}-2k`).retail_usd_per_image).toBe(0.07);
      expect(get(`imgG-2-5-${v}-4k`).retail_usd_per_image).toBe(0.11);
      for (const tier of ['2k', '4k']) {
        const ar = get(`imgG-2-5-${v}-${tier}`).capabilities.aspect_ratios ?? [];
        for (const a of EXTRA_25_ASPECTS) expect(ar, `imgG-2-5-${v}-${tier}`).not.toContain(a);
      }
    }
  });

  it('limits imgG-1-5 to three pixel sizes without 2K/4K and imgG-4o to 1:1, 2:3, 3:2', () => {
    const g15 = get('imgG-1-5');
    expect(sorted(g15.capabilities.sizes ?? [])).toEqual(sorted(['1024x1024', '1024x1536', '1536x1024']));
    for (const r of g15.capabilities.resolutions ?? []) expect(['2K', '4K']).not.toContain(r);
    expect(Object.keys(g15.pricing ?? {}).filter((k) => /2K|4K/i.test(k))).toEqual([]);
    expect(bySlug.has('imgG-1-5-2k') || bySlug.has('imgG-1-5-4k')).toBe(false);
    expect(sorted(get('imgG-4o').capabilities.aspect_ratios ?? [])).toEqual(sorted(['1:1', '2:3', '3:2']));
  });

  it('sells imgN-pro-4k at $0.192', () => {
    expect(get('imgN-pro-4k').retail_usd_per_image).toBe(0.192);
  });

  it('caps reference images at 1, 4, 8 or 10 per model as the spec lists', () => {
    for (const m of images) expect([1, 4, 8, 10], m.slug).toContain(m.capabilities.max_reference_images);
    const ones = images.filter((m) => m.capabilities.max_reference_images === 1).map((m) => m.slug);
    expect(ones).toHaveLength(3);
    expect(ones).toEqual(expect.arrayContaining(['flux-kontext-pro', 'flux-kontext-max']));
    const fours = images.filter((m) => m.capabilities.max_reference_images === 4).map((m) => m.slug);
    expect(sorted(fours)).toEqual(sorted(images.filter((m) => m.slug.startsWith('wan-2-7-image')).map((m) => m.slug)));
    expect(fours).toEqual(expect.arrayContaining(['wan-2-7-image', 'wan-2-7-image-pro']));
    const eights = images.filter((m) => m.capabilities.max_reference_images === 8).map((m) => m.slug);
    expect(sorted(eights)).toEqual(['flux-2-flex', 'flux-2-pro']);
    expect(images.filter((m) => m.slug.startsWith('flux-2-')).map((m) => m.slug).length).toBe(2);
  });

  it('gives the kontext-style models 9:21 and no auto', () => {
    const kontext = images.filter((m) => m.slug.includes('kontext'));
    expect(sorted(kontext.map((m) => m.slug))).toEqual(['flux-kontext-max', 'flux-kontext-pro']);
    for (const m of kontext) {
      expect(m.capabilities.aspect_ratios, m.slug).toContain('9:21');
      expect(m.capabilities.aspect_ratios, m.slug).not.toContain('auto');
    }
  });

  it('has some edit-only models', () => {
    for (const m of images) expect(typeof m.capabilities.edit_only, m.slug).toBe('boolean');
    expect(images.filter((m) => m.capabilities.edit_only).length).toBeGreaterThanOrEqual(2);
  });
});

describe('catalog.json: video rows (SPEC 2.12, 4.6, 8, 9.2)', () => {
  const videos = generative('video');
  const parametric = videos.filter(
    (m) => sorted(m.capabilities.resolutions ?? []).join() === sorted(['720p', '1080p', '4k']).join(),
  );

  it('bills per second or per clip and repeats the unit price in retail_usd_per_image', () => {
    for (const m of ofKind('video')) {
      expect(m.retail_usd_per_image, m.slug).toBe(m.retail_usd_per_unit);
      expect(m.audio_billing_unit, m.slug).toBeNull();
    }
    for (const m of videos) {
      expect(['second', 'video'], m.slug).toContain(m.video_billing_unit);
      expect(m.retail_usd_per_unit!, m.slug).toBeGreaterThan(0);
      expect(m.capabilities.output_formats, m.slug).toContain('mp4');
      for (const f of m.capabilities.output_formats ?? []) expect(['mp4', 'mov', 'webm'], m.slug).toContain(f);
      expect(Boolean(m.capabilities.duration_range) || Boolean(m.capabilities.durations), m.slug).toBe(true);
    }
    expect(videos.some((m) => m.video_billing_unit === 'video')).toBe(true);
  });

  it('prices the draft-capable vidA-2-5 at $0.198 draft, $0.36 720p, $0.86 1080p, $1.03 with reference video', () => {
    const m = get('vidA-2-5');
    // 720p (SPEC 2.12 lists it, 4.6 gives no rate): the family's 480p → 720p step (-fast ×1.82, -mini ×1.8) on the
    // SKU's 480p rate, which is also twice -fast's 720p, as its 480p is twice -fast's.
    expect(m.pricing).toEqual({ '480p': 0.198, '720p': 0.36, '1080p': 0.86, '1080p_reference_video': 1.03 });
    expect(m.retail_usd_per_unit).toBe(0.86);
    expect(m.video_billing_unit).toBe('second');
    expect(m.capabilities.draft).toBe(true);
    expect(m.capabilities.resolutions).toEqual(['480p', '720p', '1080p']);
    expect(m.capabilities.duration_range).toEqual({ min: 4, max: 30 });
    expect(videos.filter((x) => x.capabilities.draft).map((x) => x.slug)).toEqual(['vidA-2-5']);
  });

  it('limits vidA-2-5-fast and -mini to 480p/720p and bills vidA-2 at $0.272/s at 720p', () => {
    for (const s of ['vidA-2-5-fast', 'vidA-2-5-mini'])
      expect(get(s).capabilities.resolutions, s).toEqual(['480p', '720p']);
    const a2 = get('vidA-2');
    expect(a2.retail_usd_per_unit).toBe(0.272);
    expect(a2.video_billing_unit).toBe('second');
    expect(a2.capabilities.resolutions).toEqual(['720p']);
  });

  it('allows only 4, 6 or 8 seconds on vidV-3-1-*', () => {
    const v31 = videos.filter((m) => m.slug.startsWith('vidV-3-1-'));
    expect(v31.length).toBeGreaterThanOrEqual(2);
    for (const m of v31) {
      expect(m.capabilities.durations, m.slug).toEqual([4, 6, 8]);
      expect(m.capabilities.duration_range, m.slug).toBeUndefined();
    }
  });

  it('has at least two image-to-video-only vidK-avatar-* SKUs with lip-sync up to 15 s', () => {
    const avatars = videos.filter((m) => m.slug.startsWith('vidK-avatar-'));
    expect(avatars.length).toBeGreaterThanOrEqual(2);
    for (const m of avatars) {
      expect(m.capabilities.image_to_video_only, m.slug).toBe(true);
      expect(m.capabilities.duration_range?.max, m.slug).toBe(15);
    }
  });

  it('has image-to-video-only, motion-control and reference-to-video slugs', () => {
    const i2vOnly = videos.filter((m) => m.capabilities.image_to_video_only && !m.capabilities.motion_control);
    const motion = videos.filter((m) => m.capabilities.motion_control);
    const refs = videos.filter((m) => m.capabilities.reference_to_video);
    expect(i2vOnly.length).toBeGreaterThanOrEqual(2);
    expect(motion.length).toBeGreaterThanOrEqual(2);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const m of motion)
      expect(m.capabilities.input_modalities, m.slug).toEqual(expect.arrayContaining(['image', 'video']));
    for (const m of refs) expect(m.capabilities.max_reference_images!, m.slug).toBeGreaterThan(0);
  });

  it('prices the parametric family at reference x 0.90 with a 10% label, audio on two and the two mode sets', () => {
    expect(parametric.length).toBeGreaterThanOrEqual(3);
    for (const m of parametric) {
      expect(m.discounted, m.slug).toBe(true);
      expect(m.discount_percent_label, m.slug).toBe(10);
      expect(Object.keys(m.pricing ?? {}), m.slug).toEqual(expect.arrayContaining(['720p', '1080p', '4k']));
      expect(m.retail_usd_per_unit, m.slug).toBe(m.pricing?.['1080p']);
    }
    const audio = videos.filter((m) => m.capabilities.audio === true);
    expect(audio).toHaveLength(2);
    for (const m of audio) expect(parametric, m.slug).toContain(m);
    const withModes = videos.filter((m) => m.capabilities.modes !== undefined);
    expect(withModes.every((m) => parametric.includes(m))).toBe(true);
    const spm = withModes.filter((m) => m.capabilities.modes?.join() === 'standard,pro,master');
    const turbo = withModes.filter((m) => m.capabilities.modes?.join() === 'turbo');
    expect(spm).toHaveLength(1);
    expect(turbo).toHaveLength(1);
    expect(turbo[0]?.slug).toMatch(/turbo-pro/);
    expect(withModes).toHaveLength(2);
  });
});

describe('catalog.json: music, speech and restoration rows', () => {
  it('bills music per second and repeats the price in retail_usd_per_image', () => {
    const music = ofKind('music');
    expect(music.length).toBeGreaterThanOrEqual(3);
    for (const m of music) {
      expect(m.audio_billing_unit, m.slug).toBe('second');
      expect(m.video_billing_unit, m.slug).toBeNull();
      expect(m.retail_usd_per_unit!, m.slug).toBeGreaterThan(0);
      expect(m.retail_usd_per_image, m.slug).toBe(m.retail_usd_per_unit);
    }
  });

  it('bills speech per character with a stock default voice', () => {
    const speech = ofKind('audio');
    expect(speech.length).toBeGreaterThanOrEqual(3);
    for (const m of speech) {
      expect(m.audio_billing_unit, m.slug).toBe('character');
      expect(m.video_billing_unit, m.slug).toBeNull();
      expect(m.retail_usd_per_unit!, m.slug).toBeGreaterThan(0);
      expect(m.retail_usd_per_image, m.slug).toBeNull();
      const c = m.capabilities;
      expect(c.voices?.length ?? 0, m.slug).toBeGreaterThan(0);
      expect(c.voices, m.slug).toContain(c.default_voice);
      expect(c.max_characters!, m.slug).toBeGreaterThan(0);
    }
  });

  it('leaves media prices to credits on restoration rows', () => {
    for (const m of models.filter((x) => x.credit_metered)) {
      for (const f of PRICE_FIELDS) expect(m[f], `${m.slug}.${f}`).toBeNull();
      expect(m.video_billing_unit, m.slug).toBeNull();
      expect(m.audio_billing_unit, m.slug).toBeNull();
      expect(m.discounted, m.slug).toBe(false);
    }
  });
});

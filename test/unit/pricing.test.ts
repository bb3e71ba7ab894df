import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { microsToUsd, usdToMicros } from '../../src/domain/billing/money.js';
import type { CatalogFile, CatalogFileEntry } from '../../src/domain/catalog/catalog-file.js';
import { type CallerDiscounts, ModelCatalog } from '../../src/domain/catalog/model-catalog.js';
import {
  audioCost,
  creditsForMegapixels,
  imageCost,
  isParametricVideo,
  NO_DISCOUNTS,
  parametricRetail,
  restorationCost,
  retrievalCost,
  textCost,
  textHoldEstimate,
  toUsd,
  videoCost,
  videoHoldEstimate,
} from '../../src/domain/pricing/index.js';
import { catalogRow } from '../setup/catalog-rows.js';

const file = JSON.parse(readFileSync(new URL('../../config/catalog.json', import.meta.url), 'utf8')) as CatalogFile;

/** A real row of config/catalog.json. */
function real(slug: string): CatalogFileEntry {
  const entry = file.models.find((m) => m.slug === slug);
  if (entry === undefined) throw new Error(`config/catalog.json has no "${slug}"`);
  return entry;
}

const synthetic = catalogRow;

const none = NO_DISCOUNTS;
const ten: CallerDiscounts = { discountPercent: 10, tierDiscounts: {} };
const sevenHalf: CallerDiscounts = { discountPercent: 7.5, tierDiscounts: {} };
/** 10 % personal; the 4K and reference-video tiers have their own discount, which replaces the 10 %. */
const tiered: CallerDiscounts = { discountPercent: 10, tierDiscounts: { '4K': 25, '1080p_reference_video': 20 } };
/** A tier discount of 0 replaces the personal 10 % too: that tier is sold at list price. */
const tierZero: CallerDiscounts = { discountPercent: 10, tierDiscounts: { '4K': 0 } };

describe('textCost (SPEC 2.6): gpt-5-mini at $0.25 in / $2 out / $0.025 cached per Mtok', () => {
  const mini = real('gpt-5-mini');

  it.each([
    // 1234 × 0.25 + 567 × 2 = 308.5 + 1134 = 1442.5 µ$ → 1443 (half-up at exactly .5)
    {
      name: 'plain call, .5 rounds up',
      prompt: 1234,
      cached: 0,
      completion: 567,
      discounts: none,
      applies: false,
      micros: 1443n,
    },
    // 2 × 0.25 = 0.5 → 1; 1 × 0.25 = 0.25 → 0
    {
      name: 'two prompt tokens: exactly half a micro',
      prompt: 2,
      cached: 0,
      completion: 0,
      discounts: none,
      applies: false,
      micros: 1n,
    },
    {
      name: 'one prompt token: a quarter micro',
      prompt: 1,
      cached: 0,
      completion: 0,
      discounts: none,
      applies: false,
      micros: 0n,
    },
    // cached discounted: 200 × 0.25 + 800 × 0.025 + 100 × 2 = 50 + 20 + 200 = 270
    {
      name: 'cached input discounted by the provider',
      prompt: 1000,
      cached: 800,
      completion: 100,
      discounts: none,
      applies: true,
      micros: 270n,
    },
    // not discounted: all 1000 prompt tokens as input: 250 + 200 = 450
    {
      name: 'cached input NOT discounted by the provider',
      prompt: 1000,
      cached: 800,
      completion: 100,
      discounts: none,
      applies: false,
      micros: 450n,
    },
    {
      name: 'cache discount with no cached tokens',
      prompt: 1234,
      cached: 0,
      completion: 567,
      discounts: none,
      applies: true,
      micros: 1443n,
    },
    // 10 %: rates 0.225 / 1.8 → 277.65 + 1020.6 = 1298.25 → 1298
    {
      name: '10 % personal discount',
      prompt: 1234,
      cached: 0,
      completion: 567,
      discounts: ten,
      applies: false,
      micros: 1298n,
    },
    // 7.5 %: rates 0.23125 / 1.85 → 285.3625 + 1048.95 = 1334.3125 → 1334
    {
      name: '7.5 % personal discount',
      prompt: 1234,
      cached: 0,
      completion: 567,
      discounts: sevenHalf,
      applies: false,
      micros: 1334n,
    },
    // 7.5 %, cached rate 0.023125: 200 × 0.23125 + 800 × 0.023125 + 100 × 1.85 = 46.25 + 18.5 + 185 = 249.75 → 250
    {
      name: '7.5 % with discounted cache',
      prompt: 1000,
      cached: 800,
      completion: 100,
      discounts: sevenHalf,
      applies: true,
      micros: 250n,
    },
    // tier discounts touch `pricing` only; text has none, so the personal 10 % applies: 1298
    {
      name: 'tier discounts do not touch text rates',
      prompt: 1234,
      cached: 0,
      completion: 567,
      discounts: tiered,
      applies: false,
      micros: 1298n,
    },
    // completion_tokens includes 800 hidden reasoning tokens: 1000 × 2 = 2000
    {
      name: 'reasoning tokens are completion tokens',
      prompt: 0,
      cached: 0,
      completion: 1000,
      discounts: none,
      applies: false,
      micros: 2000n,
    },
    // 1M × 0.25 + 1M × 2 = $2.25
    {
      name: 'a million each way',
      prompt: 1_000_000,
      cached: 0,
      completion: 1_000_000,
      discounts: none,
      applies: false,
      micros: 2_250_000n,
    },
  ])('$name → $micros µ$', ({ prompt, cached, completion, discounts, applies, micros }) => {
    const usage = { promptTokens: prompt, cachedTokens: cached, completionTokens: completion };
    expect(textCost(mini, usage, discounts, { cachedDiscountApplies: applies })).toBe(micros);
  });

  it.each([
    { name: 'cached above prompt', usage: { promptTokens: 10, cachedTokens: 11, completionTokens: 0 } },
    { name: 'negative tokens', usage: { promptTokens: -1, cachedTokens: 0, completionTokens: 0 } },
    { name: 'fractional tokens', usage: { promptTokens: 1.5, cachedTokens: 0, completionTokens: 0 } },
  ])('rejects $name with a RangeError', ({ usage }) => {
    expect(() => textCost(mini, usage, none, { cachedDiscountApplies: true })).toThrow(RangeError);
  });

  it('needs the cached rate only when the cache discount applies', () => {
    const noCachedPrice = synthetic({
      slug: 'no-cache',
      media_kind: 'text',
      retail_input_usd_per_mtok: 1,
      retail_output_usd_per_mtok: 2,
    });
    const usage = { promptTokens: 1000, cachedTokens: 500, completionTokens: 0 };
    expect(textCost(noCachedPrice, usage, none, { cachedDiscountApplies: false })).toBe(1000n); // 1000 × 1
    expect(() => textCost(noCachedPrice, usage, none, { cachedDiscountApplies: true })).toThrow(
      /"no-cache" has no retail_cached_input_usd_per_mtok/,
    );
  });

  it('throws a plain Error on a row without text prices', () => {
    expect(() =>
      textCost(real('imgG-2'), { promptTokens: 1, cachedTokens: 0, completionTokens: 0 }, none, {
        cachedDiscountApplies: false,
      }),
    ).toThrow(/"imgG-2" has no retail_input_usd_per_mtok/);
  });
});

describe('textHoldEstimate (SPEC 4.2): estimated prompt + max_tokens at the output rate', () => {
  const mini = real('gpt-5-mini');

  it.each([
    // 1234 × 0.25 + 4096 × 2 = 308.5 + 8192 = 8500.5 → 8501
    { prompt: 1234, maxTokens: 4096, discounts: none, micros: 8501n },
    // 1 × 2 = 2
    { prompt: 0, maxTokens: 1, discounts: none, micros: 2n },
    // 10 %: 1234 × 0.225 + 4096 × 1.8 = 277.65 + 7372.8 = 7650.45 → 7650
    { prompt: 1234, maxTokens: 4096, discounts: ten, micros: 7650n },
    // 7.5 %: 1234 × 0.23125 + 4096 × 1.85 = 285.3625 + 7577.6 = 7862.9625 → 7863
    { prompt: 1234, maxTokens: 4096, discounts: sevenHalf, micros: 7863n },
  ])('prompt $prompt, max_tokens $maxTokens → $micros µ$', ({ prompt, maxTokens, discounts, micros }) => {
    expect(textHoldEstimate(mini, prompt, maxTokens, discounts)).toBe(micros);
  });

  it('is never below what the call can cost', () => {
    const cost = textCost(mini, { promptTokens: 1234, cachedTokens: 0, completionTokens: 4096 }, none, {
      cachedDiscountApplies: false,
    });
    expect(textHoldEstimate(mini, 1234, 4096, none)).toBe(cost);
  });
});

describe('retrievalCost (SPEC 4.1 rule 3): input tokens only, catalog rate already 20 % below vendor', () => {
  it.each([
    // text-embedding-3-small $0.016/Mtok: 10 × 0.016 = 0.16 µ$ → 0 (short input is free)
    { slug: 'text-embedding-3-small', tokens: 10, discounts: none, micros: 0n },
    { slug: 'text-embedding-3-small', tokens: 0, discounts: none, micros: 0n },
    // 31 × 0.016 = 0.496 → 0; 32 × 0.016 = 0.512 → 1
    { slug: 'text-embedding-3-small', tokens: 31, discounts: none, micros: 0n },
    { slug: 'text-embedding-3-small', tokens: 32, discounts: none, micros: 1n },
    // 7.5 %: 0.016 × 0.925 = 0.0148; 1250 × 0.0148 = 18.5 → 19 (exact half); 1249 → 18.4852 → 18
    { slug: 'text-embedding-3-small', tokens: 1250, discounts: sevenHalf, micros: 19n },
    { slug: 'text-embedding-3-small', tokens: 1249, discounts: sevenHalf, micros: 18n },
    // text-embedding-3-large $0.104/Mtok is the price (no second 20 % off): 1M tokens = $0.104
    { slug: 'text-embedding-3-large', tokens: 1_000_000, discounts: none, micros: 104_000n },
    // 10 %: 0.104 × 0.9 = 0.0936; 5000 × 0.0936 = 468
    { slug: 'text-embedding-3-large', tokens: 5000, discounts: ten, micros: 468n },
    // rerank bge-reranker-v2-m3 $0.008/Mtok: 100 × 0.008 = 0.8 → 1; 50 → 0.4 → 0
    { slug: 'bge-reranker-v2-m3', tokens: 100, discounts: none, micros: 1n },
    { slug: 'bge-reranker-v2-m3', tokens: 50, discounts: none, micros: 0n },
    // qwen3-rerank $0.08 at 10 % = 0.072; 2000 × 0.072 = 144
    { slug: 'qwen3-rerank', tokens: 2000, discounts: ten, micros: 144n },
    // tier discounts do not apply (no `pricing`): personal 10 % → 144
    { slug: 'qwen3-rerank', tokens: 2000, discounts: tiered, micros: 144n },
  ])('$slug, $tokens tokens → $micros µ$', ({ slug, tokens, discounts, micros }) => {
    expect(real(slug).discount_percent_label).toBe(20);
    expect(retrievalCost(real(slug), tokens, discounts)).toBe(micros);
  });

  it('refuses a row that is not an embedding or rerank model', () => {
    expect(() => retrievalCost(real('gpt-5-mini'), 10, none)).toThrow(
      /"gpt-5-mini" is not an embedding or rerank model/,
    );
  });
});

describe('imageCost (SPEC 2.11, 4.6): pricing[tier] or retail_usd_per_image, per delivered image', () => {
  it.each([
    { slug: 'imgG-2', tier: '1K', images: 1, discounts: none, micros: 46_400n },
    { slug: 'imgG-2', tier: '2K', images: 1, discounts: none, micros: 70_000n },
    { slug: 'imgG-2', tier: '4K', images: 1, discounts: none, micros: 110_000n },
    { slug: 'imgG-2', tier: undefined, images: 1, discounts: none, micros: 46_400n }, // base SKU = retail_usd_per_image
    { slug: 'imgG-2-2k', tier: undefined, images: 1, discounts: none, micros: 70_000n },
    { slug: 'imgG-2-4k', tier: '4K', images: 1, discounts: none, micros: 110_000n },
    { slug: 'imgG-2-5-pro', tier: '4K', images: 1, discounts: none, micros: 110_000n }, // 2.5 generation: same ladder
    { slug: 'imgN-pro-4k', tier: '4K', images: 1, discounts: none, micros: 192_000n },
    { slug: 'imgN-pro-4k', tier: undefined, images: 3, discounts: none, micros: 576_000n }, // 3 × 0.192
    { slug: 'imgN-pro', tier: '2K', images: 1, discounts: none, micros: 134_000n },
    { slug: 'imgG-2', tier: '1K', images: 0, discounts: none, micros: 0n },
    // 10 %: 0.07 × 0.9 = 0.063
    { slug: 'imgG-2', tier: '2K', images: 1, discounts: ten, micros: 63_000n },
    // 7.5 %: 0.0464 × 0.925 = 0.04292; 0.11 × 0.925 = 0.10175
    { slug: 'imgG-2', tier: '1K', images: 1, discounts: sevenHalf, micros: 42_920n },
    { slug: 'imgG-2', tier: '4K', images: 1, discounts: sevenHalf, micros: 101_750n },
    // tier discount 25 % replaces the personal 10 % on 4K: 0.11 × 0.75 = 0.0825, × 2 = 0.165
    { slug: 'imgG-2', tier: '4K', images: 2, discounts: tiered, micros: 165_000n },
    { slug: 'imgN-pro-4k', tier: '4K', images: 1, discounts: tiered, micros: 144_000n }, // 0.192 × 0.75
    { slug: 'imgG-2', tier: '1K', images: 1, discounts: tiered, micros: 41_760n }, // no 1K entry: personal 10 %
    // a 0 % tier discount also replaces the personal one: 4K at list price, 2K at 10 %
    { slug: 'imgG-2', tier: '4K', images: 1, discounts: tierZero, micros: 110_000n },
    { slug: 'imgG-2', tier: '2K', images: 1, discounts: tierZero, micros: 63_000n },
    // the rate is exact, the total rounded once: 0.0025 × 0.925 = 0.0023125; × 2 = 0.004625 (issue 24: not 0.004626)
    { slug: 'sdxl-1-0', tier: undefined, images: 2, discounts: sevenHalf, micros: 4625n },
    { slug: 'sdxl-1-0', tier: undefined, images: 1, discounts: sevenHalf, micros: 2313n }, // 2312.5 → 2313, half-up once
    // a row without tiers has one price whatever tier the size mapped to
    { slug: 'imgG-4o', tier: '1K', images: 1, discounts: none, micros: 40_000n },
  ])('$slug $tier × $images → $micros µ$', ({ slug, tier, images, discounts, micros }) => {
    expect(imageCost(real(slug), tier === undefined ? { images } : { images, tier }, discounts)).toBe(micros);
  });

  it.each([
    { name: 'a tier the row does not price', slug: 'imgG-2', tier: '8K', error: /"imgG-2" has no pricing\["8K"\]/ },
    {
      name: 'a restoration row (credits, no image price)',
      slug: 'topaz-gigapixel-standard',
      tier: undefined,
      error: /has no retail_usd_per_image/,
    },
  ])('throws on $name', ({ slug, tier, error }) => {
    expect(() => imageCost(real(slug), tier === undefined ? { images: 1 } : { images: 1, tier }, none)).toThrow(error);
  });

  it('rejects a fractional image count', () => {
    expect(() => imageCost(real('imgG-2'), { images: 1.5 }, none)).toThrow(RangeError);
  });
});

describe('the bill equals the caller catalog view', () => {
  const catalog = new ModelCatalog(file);

  it.each([
    { name: 'no discount', discounts: none },
    { name: '7.5 %', discounts: sevenHalf },
    { name: '10 % with a 25 % 4K tier', discounts: tiered },
  ])('for every image tier and text rate ($name)', ({ discounts }) => {
    const view = new Map(catalog.view(discounts).models.map((m) => [m.slug, m]));
    for (const entry of file.models) {
      const shown = view.get(entry.slug);
      if (shown === undefined) throw new Error(entry.slug);
      if (entry.media_kind === 'image' && entry.retail_usd_per_image !== null) {
        expect(imageCost(entry, { images: 1 }, discounts), entry.slug).toBe(
          usdToMicros(shown.retail_usd_per_image ?? -1),
        );
        for (const [tier, usd] of Object.entries(shown.pricing ?? {})) {
          expect(imageCost(entry, { images: 1, tier }, discounts), `${entry.slug} ${tier}`).toBe(usdToMicros(usd));
        }
      }
      if (entry.media_kind === 'text') {
        const million = (usage: { promptTokens: number; cachedTokens: number; completionTokens: number }) =>
          textCost(entry, usage, discounts, { cachedDiscountApplies: true });
        expect(million({ promptTokens: 1e6, cachedTokens: 0, completionTokens: 0 }), entry.slug).toBe(
          usdToMicros(shown.retail_input_usd_per_mtok ?? -1),
        );
        expect(million({ promptTokens: 0, cachedTokens: 0, completionTokens: 1e6 }), entry.slug).toBe(
          usdToMicros(shown.retail_output_usd_per_mtok ?? -1),
        );
        expect(million({ promptTokens: 1e6, cachedTokens: 1e6, completionTokens: 0 }), entry.slug).toBe(
          usdToMicros(shown.retail_cached_input_usd_per_mtok ?? -1),
        );
      }
    }
  });
});

describe('videoCost (SPEC 2.12, 3.2, 4.6)', () => {
  it.each([
    // vidA-2-5: 480p draft 0.198 × 5 = 0.99
    {
      slug: 'vidA-2-5',
      resolution: '480p',
      seconds: 5,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 990_000n,
    },
    // 1080p (direct or final of a draft) 0.86 × 5 = 4.30
    {
      slug: 'vidA-2-5',
      resolution: '1080p',
      seconds: 5,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 4_300_000n,
    },
    // 1080p with reference video 1.03 × 5 = 5.15; the reference's own 20 s are not billed
    {
      slug: 'vidA-2-5',
      resolution: '1080p',
      seconds: 5,
      ref: true,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 5_150_000n,
    },
    {
      slug: 'vidA-2-5',
      resolution: '1080p',
      seconds: 5,
      ref: true,
      refSeconds: 20,
      mode: undefined,
      discounts: none,
      micros: 5_150_000n,
    },
    // measured 4.00025 s × 0.198 = 0.7920495 $ = 792049.5 µ$ → 792050 (half-up, once)
    {
      slug: 'vidA-2-5',
      resolution: '480p',
      seconds: 4.00025,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 792_050n,
    },
    // vidA-2: 720p 0.272 × 10 = 2.72
    {
      slug: 'vidA-2',
      resolution: '720p',
      seconds: 10,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 2_720_000n,
    },
    // vidA-2 with a measured 7.5 s reference: (10 + 7.5) × 0.272 = 4.76
    {
      slug: 'vidA-2',
      resolution: '720p',
      seconds: 10,
      ref: true,
      refSeconds: 7.5,
      mode: undefined,
      discounts: none,
      micros: 4_760_000n,
    },
    // parametric vidK-3-0: 4k 0.3024 × 5 = 1.512; 720p 0.0756 × 10 = 0.756
    {
      slug: 'vidK-3-0',
      resolution: '4k',
      seconds: 5,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 1_512_000n,
    },
    {
      slug: 'vidK-3-0',
      resolution: '720p',
      seconds: 10,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 756_000n,
    },
    // vidK-2-1 master tier 0.252 × 10 = 2.52; `pro` has no tier of its own: 1080p 0.0882 × 10 = 0.882
    {
      slug: 'vidK-2-1',
      resolution: '1080p',
      seconds: 10,
      ref: false,
      refSeconds: undefined,
      mode: 'master',
      discounts: none,
      micros: 2_520_000n,
    },
    {
      slug: 'vidK-2-1',
      resolution: '1080p',
      seconds: 10,
      ref: false,
      refSeconds: undefined,
      mode: 'pro',
      discounts: none,
      micros: 882_000n,
    },
    // per clip (video_billing_unit 'video'), tier by resolution and length
    {
      slug: 'hailuo-2-3',
      resolution: '768p',
      seconds: 6,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 280_000n,
    },
    {
      slug: 'hailuo-2-3',
      resolution: '768p',
      seconds: 10,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 560_000n,
    },
    {
      slug: 'hailuo-2-3',
      resolution: '1080p',
      seconds: 6,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 490_000n,
    },
    // per clip without tiers: retail_usd_per_unit 0.48
    {
      slug: 'hailuo-02-pro',
      resolution: '1080p',
      seconds: 6,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 480_000n,
    },
    // per second without tiers: 0.32 × 8 = 2.56 at any resolution
    {
      slug: 'vidV-3',
      resolution: '1080p',
      seconds: 8,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: none,
      micros: 2_560_000n,
    },
    // 10 %: 0.86 × 0.9 = 0.774; × 5 = 3.87
    {
      slug: 'vidA-2-5',
      resolution: '1080p',
      seconds: 5,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: ten,
      micros: 3_870_000n,
    },
    // 7.5 %: 0.198 × 0.925 = 0.18315; × 5 = 0.91575
    {
      slug: 'vidA-2-5',
      resolution: '480p',
      seconds: 5,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: sevenHalf,
      micros: 915_750n,
    },
    // tier 20 % replaces personal 10 % on 1080p_reference_video: 1.03 × 0.8 = 0.824; × 5 = 4.12
    {
      slug: 'vidA-2-5',
      resolution: '1080p',
      seconds: 5,
      ref: true,
      refSeconds: undefined,
      mode: undefined,
      discounts: tiered,
      micros: 4_120_000n,
    },
    {
      slug: 'vidA-2-5',
      resolution: '1080p',
      seconds: 5,
      ref: false,
      refSeconds: undefined,
      mode: undefined,
      discounts: tiered,
      micros: 3_870_000n,
    },
  ])(
    '$slug $resolution $seconds s ref=$ref mode=$mode → $micros µ$',
    ({ slug, resolution, seconds, ref, refSeconds, mode, discounts, micros }) => {
      const usage = {
        seconds,
        resolution,
        referenceVideo: ref,
        ...(refSeconds === undefined ? {} : { referenceSeconds: refSeconds }),
        ...(mode === undefined ? {} : { mode }),
      };
      expect(videoCost(real(slug), usage, discounts)).toBe(micros);
    },
  );

  it.each([
    {
      name: 'vidA-2-5 at 4k (not in its pricing)',
      slug: 'vidA-2-5',
      usage: { seconds: 5, resolution: '4k' },
      error: /"vidA-2-5" has no pricing\["4k"\]/,
    },
    {
      name: 'vidA-2 at 1080p',
      slug: 'vidA-2',
      usage: { seconds: 5, resolution: '1080p' },
      error: /pricing\["1080p"\]/,
    },
    {
      name: 'a reference video where only another resolution prices one',
      slug: 'vidA-2-5',
      usage: { seconds: 5, resolution: '480p', referenceVideo: true },
      error: /pricing\["480p_reference_video"\]/,
    },
    {
      name: 'master mode at 720p',
      slug: 'vidK-2-1',
      usage: { seconds: 5, resolution: '720p', mode: 'master' },
      error: /pricing\["720p_master"\]/,
    },
    {
      name: 'a clip length with no tier',
      slug: 'hailuo-2-3',
      usage: { seconds: 8, resolution: '768p' },
      error: /pricing\["768p"\]/,
    },
    {
      name: 'an image row',
      slug: 'imgG-2',
      usage: { seconds: 5, resolution: '1080p' },
      error: /"imgG-2" is not a video model/,
    },
    {
      name: 'a credit-metered restoration row',
      slug: 'topaz-video-proteus',
      usage: { seconds: 5, resolution: '1080p' },
      error: /has no retail_usd_per_unit/,
    },
  ])('throws on $name', ({ slug, usage, error }) => {
    expect(() => videoCost(real(slug), usage, none)).toThrow(error);
  });

  it('needs the measured reference length on vidA-2', () => {
    expect(() => videoCost(real('vidA-2'), { seconds: 10, resolution: '720p', referenceVideo: true }, none)).toThrow(
      RangeError,
    );
  });
});

describe('videoHoldEstimate (SPEC 4.6): worst-case reference length on vidA-2', () => {
  it.each([
    // (10 s output + 12 s worst-case reference) × 0.272 = 5.984
    { slug: 'vidA-2', ref: true, seconds: 10, resolution: '720p', worst: 12, micros: 5_984_000n },
    // no reference: 10 × 0.272; the worst case is irrelevant
    { slug: 'vidA-2', ref: false, seconds: 10, resolution: '720p', worst: 12, micros: 2_720_000n },
    // vidA-2-5 bills output seconds only: 1.03 × 5 = 5.15
    { slug: 'vidA-2-5', ref: true, seconds: 5, resolution: '1080p', worst: 30, micros: 5_150_000n },
    { slug: 'vidA-2-5', ref: false, seconds: 30, resolution: '480p', worst: undefined, micros: 5_940_000n }, // 0.198 × 30
  ])('$slug ref=$ref $seconds s → $micros µ$', ({ slug, ref, seconds, resolution, worst, micros }) => {
    const opts = worst === undefined ? {} : { worstCaseReferenceSeconds: worst };
    expect(videoHoldEstimate(real(slug), { seconds, resolution, referenceVideo: ref }, none, opts)).toBe(micros);
  });

  it('needs the worst-case reference length on vidA-2', () => {
    expect(() =>
      videoHoldEstimate(real('vidA-2'), { seconds: 10, resolution: '720p', referenceVideo: true }, none),
    ).toThrow(RangeError);
  });

  it('equals the cost once the measured reference is as long as the worst case', () => {
    const request = { seconds: 8, resolution: '720p', referenceVideo: true };
    const hold = videoHoldEstimate(real('vidA-2'), request, ten, { worstCaseReferenceSeconds: 12 });
    expect(videoCost(real('vidA-2'), { ...request, referenceSeconds: 12 }, ten)).toBe(hold);
    expect(videoCost(real('vidA-2'), { ...request, referenceSeconds: 4 }, ten)).toBeLessThan(hold);
  });
});

describe('parametricRetail (SPEC 4.6): max(reference × 0.90, source × 1.10)', () => {
  it.each([
    // vidK-3-0 1080p: 0.126 × 0.9 = 0.1134 (the catalog rate) vs 0.09 × 1.1 = 0.099 → reference wins
    { name: 'reference wins', referenceMicros: 126_000n, sourceCostMicros: 90_000n, micros: 113_400n },
    // 0.1134 vs 0.11 × 1.1 = 0.121 → the floor wins
    { name: 'floor wins', referenceMicros: 126_000n, sourceCostMicros: 110_000n, micros: 121_000n },
    // 0.099 vs 0.099: equal
    { name: 'tie', referenceMicros: 110_000n, sourceCostMicros: 90_000n, micros: 99_000n },
    // 15 × 0.9 = 13.5 → 14 (half-up) vs 0
    { name: 'reference half-up', referenceMicros: 15n, sourceCostMicros: 0n, micros: 14n },
    // 0 vs 15 × 1.1 = 16.5 → 17 (half-up)
    { name: 'floor half-up', referenceMicros: 0n, sourceCostMicros: 15n, micros: 17n },
  ])('$name → $micros µ$', ({ referenceMicros, sourceCostMicros, micros }) => {
    expect(parametricRetail({ referenceMicros, sourceCostMicros })).toBe(micros);
  });

  it('agrees with the catalog rate of vidK-3-0 at 1080p', () => {
    expect(parametricRetail({ referenceMicros: 126_000n, sourceCostMicros: 90_000n })).toBe(
      usdToMicros(real('vidK-3-0').pricing?.['1080p'] ?? -1),
    );
  });

  it('recognises the parametric family: label 10 and 720p/1080p/4k', () => {
    const family = file.models.filter(isParametricVideo).map((m) => m.slug);
    expect(family.sort()).toEqual(['vidK-1-6', 'vidK-2-1', 'vidK-2-5-turbo-pro', 'vidK-2-6-pro', 'vidK-3-0']);
    expect(isParametricVideo(real('vidA-2-5'))).toBe(false);
    expect(isParametricVideo(real('hailuo-02-standard'))).toBe(false); // label 10, other resolutions
  });

  it('rejects negative prices', () => {
    expect(() => parametricRetail({ referenceMicros: -1n, sourceCostMicros: 0n })).toThrow(RangeError);
  });
});

describe('restorationCost (SPEC 4.6, 8): $0.14 per credit on completion', () => {
  it.each([
    { slug: 'topaz-gigapixel-standard', credits: 1, discounts: none, micros: 140_000n },
    { slug: 'topaz-gigapixel-standard', credits: 3, discounts: none, micros: 420_000n },
    { slug: 'topaz-gigapixel-standard', credits: 2.5, discounts: none, micros: 350_000n },
    { slug: 'topaz-gigapixel-standard', credits: 0, discounts: none, micros: 0n },
    // 0.000025 credits × 0.14 = 3.5 µ$ → 4 (half-up)
    { slug: 'topaz-gigapixel-standard', credits: 0.000025, discounts: none, micros: 4n },
    { slug: 'topaz-video-proteus', credits: 7, discounts: none, micros: 980_000n },
    // 10 %: 0.126 × 2 = 0.252; 7.5 %: 0.1295
    { slug: 'topaz-gigapixel-standard', credits: 2, discounts: ten, micros: 252_000n },
    { slug: 'topaz-gigapixel-standard', credits: 1, discounts: sevenHalf, micros: 129_500n },
    // no `pricing`, so tier discounts never apply: personal 10 %
    { slug: 'topaz-gigapixel-standard', credits: 1, discounts: tiered, micros: 126_000n },
  ])('$slug, $credits credits → $micros µ$', ({ slug, credits, discounts, micros }) => {
    expect(restorationCost(real(slug), credits, discounts)).toBe(micros);
  });

  it.each([
    { megapixels: 0, credits: 0 },
    { megapixels: 0.000001, credits: 1 },
    { megapixels: 1, credits: 1 },
    { megapixels: 24, credits: 1 },
    { megapixels: 24.000001, credits: 2 },
    { megapixels: 33.1776, credits: 2 }, // 7680 × 4320
    { megapixels: 48, credits: 2 },
    { megapixels: 100, credits: 5 }, // 4.17 → 5
  ])('creditsForMegapixels($megapixels) = $credits (1 per 24 MP, rounded up)', ({ megapixels, credits }) => {
    expect(creditsForMegapixels(megapixels)).toBe(credits);
  });

  it('prices an 8K upscale estimate at 2 credits = $0.28', () => {
    expect(restorationCost(real('topaz-gigapixel-standard'), creditsForMegapixels((7680 * 4320) / 1e6), none)).toBe(
      280_000n,
    );
  });

  it('throws on a row without usd_per_credit, and on negative credits', () => {
    expect(() => restorationCost(real('imgG-2'), 1, none)).toThrow(/"imgG-2" has no usd_per_credit/);
    expect(() => restorationCost(real('topaz-bloom'), -1, none)).toThrow(RangeError);
  });
});

describe('audioCost: music per second, speech per character', () => {
  it.each([
    // suno-v5 $0.0006/s × 120 s = 0.072
    { slug: 'suno-v5', units: 120, discounts: none, micros: 72_000n },
    // 10 %: 0.00054 × 120 = 0.0648
    { slug: 'suno-v5', units: 120, discounts: ten, micros: 64_800n },
    // mureka-o1 $0.001105/s × 30.5 s = 33.7025 ... in µ$: 1105 × 30.5 = 33702.5 → 33703 (half-up, once)
    { slug: 'mureka-o1', units: 30.5, discounts: none, micros: 33_703n },
    // tts-1 $0.000015/char × 1000 = 0.015
    { slug: 'tts-1', units: 1000, discounts: none, micros: 15_000n },
    // 7.5 %: rate 13.875 µ$, exact (the catalog shows 0.000013875) → 13.875 × 1000 = 13875
    { slug: 'tts-1', units: 1000, discounts: sevenHalf, micros: 13_875n },
    // issue 24: 10 % off 4,000 characters is $0.054 (the rate was rounded to 14 µ$ before: $0.056)
    { slug: 'tts-1', units: 4000, discounts: ten, micros: 54_000n },
    { slug: 'kokoro-82m', units: 1, discounts: none, micros: 1n },
    { slug: 'kokoro-82m', units: 1, discounts: sevenHalf, micros: 1n }, // 0.925 µ$ → 1 µ$, rounded once on the total
    // 1 µ$ and 5 µ$ a character keep their 10 %: 0.9 µ$ × 10,000 = $0.009, 4.5 µ$ × 2,000 = $0.009 (they got 0 % off)
    { slug: 'kokoro-82m', units: 10_000, discounts: ten, micros: 9_000n },
    { slug: 'orpheus-3b', units: 2000, discounts: ten, micros: 9_000n },
    { slug: 'inworld-tts-1', units: 2000, discounts: ten, micros: 9_000n },
    { slug: 'eleven-v3', units: 10, discounts: none, micros: 900n },
  ])('$slug × $units → $micros µ$', ({ slug, units, discounts, micros }) => {
    expect(audioCost(real(slug), units, discounts)).toBe(micros);
  });

  it('bills characters in whole numbers and refuses rows without an audio unit', () => {
    expect(() => audioCost(real('tts-1'), 10.5, none)).toThrow(RangeError);
    expect(() => audioCost(real('imgG-2'), 10, none)).toThrow(/"imgG-2" has no audio_billing_unit/);
  });
});

describe('toUsd', () => {
  it.each([
    { micros: 1443n, usd: 0.001443 },
    { micros: 990_000n, usd: 0.99 },
    { micros: 0n, usd: 0 },
  ])('$micros µ$ → $usd', ({ micros, usd }) => {
    expect(toUsd).toBe(microsToUsd);
    expect(toUsd(micros)).toBe(usd);
  });
});

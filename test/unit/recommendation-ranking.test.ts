/** SPEC 2.13 against live offers: fit, then price, then verified; only offers meeting everything are suggested. */
import { describe, expect, it } from 'vitest';
import type { OfferRecord } from '../../src/adapters/market-store/index.js';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { parseRecommendationQuery } from '../../src/domain/market/recommendation-query.js';
import { gpusToHold, rankOffers } from '../../src/domain/market/recommendation-ranking.js';
import { pickReason, rulesText } from '../../src/domain/market/recommendation-text.js';

let seq = 0;
function offer(fields: Partial<OfferRecord> & { price?: number }): OfferRecord {
  const { price = 1, ...rest } = fields;
  return {
    id: `m_${++seq}`,
    providerAccountId: 'acc_p',
    name: 'rig',
    gpuName: 'RTX_4090',
    gpuCount: 8,
    vramGb: 24,
    cpuCores: 32,
    ramGb: 128,
    diskGb: 1000,
    location: 'US',
    pricePerGpuHourMicros: usdToMicros(price),
    minGpus: 1,
    discountsBp: { day: 1000, week: 2000, month: 3000 },
    availableUntilMs: null,
    listed: true,
    verification: 'unverified',
    lastHeartbeatMs: 0,
    reliabilityBp: 10_000,
    priceRise: null,
    createdAtMs: 0,
    freeGpus: 8,
    ...rest,
  };
}

const A100 = offer({ gpuName: 'A100_80GB', vramGb: 80, price: 1.5, location: 'DE', verification: 'verified' });
const RTX = offer({ gpuName: 'RTX_4090', vramGb: 24, price: 0.6, location: 'US' });
const RTX_FEW = offer({ gpuName: 'RTX_4090', vramGb: 24, price: 0.4, location: 'DE', freeGpus: 4, gpuCount: 4 });
const L4 = offer({ gpuName: 'L4', vramGb: 24, price: 0.3, location: 'FR', freeGpus: 2, gpuCount: 2 });
const MARKET = [A100, RTX, RTX_FEW, L4];
const names = [...new Set(MARKET.map((o) => o.gpuName))];
const rank = (query: string, offers: OfferRecord[] = MARKET) =>
  rankOffers(offers, parseRecommendationQuery(query, names));
const models = (picks: { offer: OfferRecord; gpuCount: number }[]) =>
  picks.map((p) => `${p.gpuCount}x${p.offer.gpuName}`);

describe('gpusToHold', () => {
  it('one GPU when the need fits, else the next power of two (tensor parallelism)', () => {
    expect(gpusToHold(null, 24)).toBe(1);
    expect(gpusToHold(17, 24)).toBe(1);
    expect(gpusToHold(100, 80)).toBe(2);
    expect(gpusToHold(168, 80)).toBe(4);
    expect(gpusToHold(168, 24)).toBe(8);
  });
});

describe('rankOffers', () => {
  it('a 70B model: each GPU model by its best offer that holds 168 GB, cheapest rental first', () => {
    const { suggestions, alternatives } = rank('serve a 70B model');
    expect(models(suggestions)).toEqual(['8xRTX_4090', '4xA100_80GB']);
    expect(suggestions[0]).toMatchObject({ offer: RTX, hourlyMicros: usdToMicros(4.8), unmet: [], matchingOffers: 1 });
    expect(alternatives).toEqual([]);
  });

  it('a budget keeps only what fits under it; a place only what is there', () => {
    expect(models(rank('70B under $5/hour').suggestions)).toEqual(['8xRTX_4090']);
    expect(models(rank('70B in Germany').suggestions)).toEqual(['4xA100_80GB']);
    expect(models(rank('a 7b model in the EU').suggestions)).toEqual(['1xL4', '1xRTX_4090', '1xA100_80GB']);
  });

  it('per-GPU budgets compare the GPU price; rental budgets the price of all GPUs rented', () => {
    expect(models(rank('70B under $1 per GPU per hour').suggestions)).toEqual(['8xRTX_4090']);
    expect(models(rank('4 GPUs under $2/hour').suggestions)).toEqual(['4xRTX_4090']);
  });

  it('nothing meets everything: no suggestion, the nearest misses as alternatives, each saying what it misses', () => {
    const { suggestions, alternatives } = rank('70B under $3/hour');
    expect(suggestions).toEqual([]);
    expect(alternatives.map((a) => [a.offer.gpuName, a.unmet])).toEqual([
      ['RTX_4090', ['budget']],
      ['A100_80GB', ['budget']],
      ['L4', ['gpu_count']],
    ]);
  });

  it('a memory miss is further than a budget miss; a GPU nobody offers makes every offer a miss', () => {
    expect(rank('70B on 1 GPU').alternatives.map((a) => a.unmet)).toEqual([['vram'], ['vram'], ['vram']]);
    const [nearest, further] = rank('at least 48GB under $1/hour').alternatives;
    expect(nearest).toMatchObject({ offer: A100, unmet: ['budget'] });
    expect(further).toMatchObject({ offer: L4, unmet: ['vram'] });
    const h100 = rank('an H100');
    expect(h100.suggestions).toEqual([]);
    expect(h100.alternatives.every((a) => a.unmet.includes('gpu_model'))).toBe(true);
  });

  it('an equal price goes to the verified provider; min_gpus raises the rental; at most 5 suggestions', () => {
    const plain = offer({ gpuName: 'X1', price: 1 });
    const verified = offer({ gpuName: 'X2', price: 1, verification: 'verified' });
    expect(
      rankOffers([plain, verified], parseRecommendationQuery('anything', ['X1', 'X2'])).suggestions.map(
        (p) => p.offer.id,
      ),
    ).toEqual([verified.id, plain.id]);
    const blocky = offer({ gpuName: 'X3', minGpus: 2, price: 0.5 });
    expect(rankOffers([blocky], parseRecommendationQuery('', ['X3'])).suggestions[0]).toMatchObject({
      gpuCount: 2,
      neededGpus: 1,
      hourlyMicros: usdToMicros(1),
    });
    const many = Array.from({ length: 7 }, (_, i) => offer({ gpuName: `G${i}` }));
    expect(rankOffers(many, parseRecommendationQuery('', [])).suggestions).toHaveLength(5);
  });
});

describe('the words', () => {
  it('a reason states the facts: memory against the need, price, GPUs free, place, provider', () => {
    const c = parseRecommendationQuery('70B under $8/hour', names);
    const [first] = rankOffers([A100], c).suggestions;
    expect(pickReason(first!, c)).toBe(
      '4 × 80 GB = 320 GB covers the 168 GB needed; 4 GPUs because a model is split over 2, 4 or 8; $1.50 per GPU-hour, $6.00/hour for 4; within budget; 8 free; Germany (DE); verified provider',
    );
  });

  it('the rules text names only the GPUs ranked, and says what is missing when nothing fits', () => {
    const fits = parseRecommendationQuery('70B in Germany', names);
    const text = rulesText(fits, rankOffers(MARKET, fits), MARKET.length);
    expect(text).toMatch(
      /^For a 70B model at 16-bit \(about 168 GB of GPU memory\), in Germany: rent 4 × A100_80GB at \$6\.00\/hour/,
    );
    expect(text).not.toMatch(/RTX_4090|L4/);
    const tight = parseRecommendationQuery('70B under $3/hour', names);
    expect(rulesText(tight, rankOffers(MARKET, tight), MARKET.length)).toMatch(
      /^Nothing on offer now meets all of: .*\. What fits costs more than \$3\.00\/hour\. Nearest: 8 × RTX_4090 at \$4\.80\/hour .*over the budget/,
    );
    expect(rulesText(tight, rankOffers([], tight), 0)).toMatch(/No GPUs are on offer right now/);
  });
});

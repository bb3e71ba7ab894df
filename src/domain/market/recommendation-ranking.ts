/**
 * SPEC 2.13 against live inventory (research/marketplace.md §5: suggestions come from actual offers): every offer is
 * measured against the constraints, the best offer of each GPU model stands for it, and the models are ranked by
 * fit (the memory covers the need), then by what the rental costs an hour, then verified providers first. Only
 * offers that meet every constraint are suggested; when none does, the nearest misses are the alternatives, each
 * saying what it misses.
 */
import type { OfferRecord } from '../../adapters/market-store/index.js';
import type { Micros } from '../billing/money.js';
import type { RecommendationConstraints } from './recommendation-query.js';

export type Unmet = 'gpu_model' | 'vram' | 'gpu_count' | 'location' | 'budget';

/** One GPU model's best offer for the request. */
export interface GpuPick {
  offer: OfferRecord;
  /** GPUs to rent on the offer: the count asked, else enough for the memory needed; never below its min_gpus. */
  gpuCount: number;
  /** GPUs the request takes before the offer's min_gpus: the count asked, else gpusToHold. */
  neededGpus: number;
  /** The offer's hourly price for `gpuCount` GPUs. */
  hourlyMicros: Micros;
  unmet: Unmet[];
  /** Offers of this GPU model that fare as well (machines a renter can choose between). */
  matchingOffers: number;
}

export interface Ranking {
  /** At most MAX_SUGGESTIONS models meeting every constraint, best first. */
  suggestions: GpuPick[];
  /** Only when nothing meets every constraint: at most MAX_ALTERNATIVES nearest misses, nearest first. */
  alternatives: GpuPick[];
}

export const MAX_SUGGESTIONS = 5;
export const MAX_ALTERNATIVES = 3;

/**
 * How far a miss is from what was asked: a model that does not fit in memory is the furthest (it cannot run), a
 * price over budget the nearest (it only costs more). The worst miss outweighs all lighter ones together.
 */
const MISS_WEIGHT: Record<Unmet, number> = { budget: 1, location: 2, gpu_model: 4, gpu_count: 8, vram: 16 };

/** SPEC 2.13: suggestions and, when there are none, the nearest alternatives, one pick per GPU model. */
export function rankOffers(offers: readonly OfferRecord[], constraints: RecommendationConstraints): Ranking {
  const byModel = new Map<string, GpuPick[]>();
  for (const offer of offers)
    byModel.set(offer.gpuName, [...(byModel.get(offer.gpuName) ?? []), measure(offer, constraints)]);
  const ranked = [...byModel.values()]
    .map((picks) => {
      const [best] = picks.sort(compare) as [GpuPick];
      return { ...best, matchingOffers: picks.filter((pick) => distance(pick) === distance(best)).length };
    })
    .sort(compare);
  const suggestions = ranked.filter((pick) => pick.unmet.length === 0).slice(0, MAX_SUGGESTIONS);
  return { suggestions, alternatives: suggestions.length > 0 ? [] : ranked.slice(0, MAX_ALTERNATIVES) };
}

/** What renting `offer` for the request takes, and which constraints it misses. */
export function measure(offer: OfferRecord, c: RecommendationConstraints): GpuPick {
  const needed = c.gpuCount ?? gpusToHold(c.vramNeededGb, offer.vramGb);
  const gpuCount = Math.max(needed, offer.minGpus);
  const hourlyMicros = offer.pricePerGpuHourMicros * BigInt(gpuCount);
  const unmet: Unmet[] = [];
  const namedElsewhere = c.gpuModels.length > 0 ? !c.gpuModels.includes(offer.gpuName) : c.gpusNotOffered.length > 0;
  if (namedElsewhere) unmet.push('gpu_model');
  const tooSmall =
    (c.minVramPerGpuGb !== null && offer.vramGb < c.minVramPerGpuGb) ||
    (c.vramNeededGb !== null && offer.vramGb * gpuCount < c.vramNeededGb);
  if (tooSmall) unmet.push('vram');
  if (offer.freeGpus < gpuCount) unmet.push('gpu_count');
  if (c.places.length > 0 && !c.places.some((place) => place.codes.includes(offer.location))) unmet.push('location');
  const charged = c.budgetPer === 'gpu' ? offer.pricePerGpuHourMicros : hourlyMicros;
  if (c.maxPricePerHourMicros !== null && charged > c.maxPricePerHourMicros) unmet.push('budget');
  return { offer, gpuCount, neededGpus: needed, hourlyMicros, unmet, matchingOffers: 1 };
}

/**
 * GPUs of `vramGb` each that hold `neededGb`: one when it fits, else the next power of two, since inference servers
 * split a model over 2, 4 or 8 GPUs (tensor parallelism divides the attention heads evenly).
 */
export function gpusToHold(neededGb: number | null, vramGb: number): number {
  if (neededGb === null || neededGb <= vramGb) return 1;
  return 2 ** Math.ceil(Math.log2(Math.ceil(neededGb / vramGb)));
}

function distance(pick: GpuPick): number {
  return pick.unmet.reduce((sum, miss) => sum + MISS_WEIGHT[miss], 0);
}

/** Fit first (nothing missed, else the nearest miss), then the rental's hourly price, then verified providers. */
function compare(a: GpuPick, b: GpuPick): number {
  return (
    distance(a) - distance(b) ||
    Number(a.hourlyMicros - b.hourlyMicros) ||
    Number(b.offer.verification === 'verified') - Number(a.offer.verification === 'verified') ||
    b.offer.freeGpus - a.offer.freeGpus ||
    a.offer.id.localeCompare(b.offer.id)
  );
}

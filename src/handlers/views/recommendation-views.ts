import type { components } from '../../../generated/openapi.js';
import { microsToUsd } from '../../domain/billing/money.js';
import type { Recommendation } from '../../domain/market/recommendation.js';
import type { RecommendationConstraints } from '../../domain/market/recommendation-query.js';
import type { GpuPick } from '../../domain/market/recommendation-ranking.js';
import { pickReason } from '../../domain/market/recommendation-text.js';

type Schemas = components['schemas'];

/** SPEC 2.13 `data`: the text, the GPUs it rests on, and the constraints it was read as. */
export function recommendationView(r: Recommendation): Schemas['Recommendation'] {
  const gpu = (pick: GpuPick) => recommendedGpuView(pick, r.constraints);
  return {
    recommendation: r.text,
    suggested_gpus: r.ranking.suggestions.map(gpu),
    alternatives: r.ranking.alternatives.map(gpu),
    constraints: constraintsView(r.constraints),
    written_by: r.writtenBy,
    ...(r.model === null ? {} : { model: r.model }),
    cost_usd: microsToUsd(r.costMicros),
  };
}

function recommendedGpuView(pick: GpuPick, c: RecommendationConstraints): Schemas['RecommendedGpu'] {
  const { offer } = pick;
  return {
    model: offer.gpuName,
    reason: pickReason(pick, c),
    offer_id: offer.id,
    gpu_count: pick.gpuCount,
    vram_gb: offer.vramGb,
    free_gpus: offer.freeGpus,
    price_per_gpu_hour_usd: microsToUsd(offer.pricePerGpuHourMicros),
    price_per_hour_usd: microsToUsd(pick.hourlyMicros),
    location: offer.location,
    verification: offer.verification,
    matching_offers: pick.matchingOffers,
    unmet: pick.unmet,
  };
}

function constraintsView(c: RecommendationConstraints): Schemas['RecommendationConstraints'] {
  return {
    model_size_billions: c.modelBillions,
    precision: c.precision,
    vram_needed_gb: c.vramNeededGb,
    min_vram_per_gpu_gb: c.minVramPerGpuGb,
    max_price_per_hour_usd: c.maxPricePerHourMicros === null ? null : microsToUsd(c.maxPricePerHourMicros),
    budget_per: c.budgetPer,
    gpu_count: c.gpuCount,
    locations: [...new Set(c.places.flatMap((place) => place.codes))].sort(),
    gpu_models: c.gpuModels,
    gpus_not_offered: c.gpusNotOffered,
  };
}

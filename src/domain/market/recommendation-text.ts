/**
 * The words of a recommendation (SPEC 2.13), all built from the same ranked facts: each GPU's `reason`, the
 * rules-written `recommendation` (no model configured, or the model failed), and the prompt a configured model
 * writes it from. Nothing here invents a GPU: only picks of the ranking are named.
 */
import { type Micros, microsToUsd } from '../billing/money.js';
import { countryPlace } from './countries.js';
import { GB_PER_BILLION, MEMORY_OVERHEAD, type RecommendationConstraints } from './recommendation-query.js';
import type { GpuPick, Ranking, Unmet } from './recommendation-ranking.js';

const usd = (micros: Micros): string => `$${microsToUsd(micros).toFixed(2)}`;
const percent = Math.round(MEMORY_OVERHEAD * 100);

/** "a 70B model at 16-bit (about 168 GB of GPU memory)", "160 GB of GPU memory in all". */
function needPhrase(c: RecommendationConstraints): string | null {
  if (c.vramNeededGb === null) return null;
  if (c.modelBillions === null) return `${c.vramNeededGb} GB of GPU memory in all`;
  return `a ${c.modelBillions}B model at ${c.precision} (about ${c.vramNeededGb} GB of GPU memory)`;
}

/** "$3.00/hour" (the whole rental) or "$1.50 per GPU-hour". */
function budget(c: RecommendationConstraints): string | null {
  if (c.maxPricePerHourMicros === null) return null;
  return c.budgetPer === 'gpu'
    ? `${usd(c.maxPricePerHourMicros)} per GPU-hour`
    : `${usd(c.maxPricePerHourMicros)}/hour`;
}

const placesPhrase = (c: RecommendationConstraints): string => c.places.map((p) => p.label).join(' or ');

/** What the request asked, as read: the constraints in words. */
export function askedPhrases(c: RecommendationConstraints): string[] {
  const named = c.gpuModels.length > 0 ? c.gpuModels : c.gpusNotOffered;
  return [
    needPhrase(c),
    c.minVramPerGpuGb === null ? null : `at least ${c.minVramPerGpuGb} GB per GPU`,
    c.gpuCount === null ? null : `${c.gpuCount} GPU${c.gpuCount === 1 ? '' : 's'}`,
    budget(c) === null ? null : `at most ${budget(c)}`,
    c.places.length === 0 ? null : `in ${placesPhrase(c)}`,
    named.length === 0 ? null : `${named.join(' or ')} GPUs`,
  ].filter((phrase): phrase is string => phrase !== null);
}

/** The memory assumption, said once (SPEC 2.13 leaves the estimate to us; docs/decisions.md). */
function assumption(c: RecommendationConstraints): string {
  if (c.modelBillions === null) return '';
  const rates = Object.entries(GB_PER_BILLION)
    .map(([precision, gb]) => `${gb} GB at ${precision}`)
    .join(', ');
  return ` Memory is estimated for inference: per billion parameters ${rates}, plus ${percent} % for the KV cache and runtime.`;
}

/** A pick in facts: memory against the need, price against the budget, GPUs free, place, provider. */
export function pickReason(pick: GpuPick, c: RecommendationConstraints): string {
  const { offer, gpuCount } = pick;
  const memory =
    gpuCount === 1 ? `${offer.vramGb} GB` : `${gpuCount} × ${offer.vramGb} GB = ${gpuCount * offer.vramGb} GB`;
  const need =
    c.vramNeededGb === null
      ? ''
      : ` ${gpuCount * offer.vramGb >= c.vramNeededGb ? 'covers' : 'is short of'} the ${c.vramNeededGb} GB needed`;
  const perGpu =
    c.minVramPerGpuGb === null
      ? null
      : `${offer.vramGb} GB per GPU ${offer.vramGb >= c.minVramPerGpuGb ? 'meets' : 'is below'} the ${c.minVramPerGpuGb} GB asked`;
  const parts = [
    `${memory}${need}`,
    perGpu,
    pick.neededGpus > 1 && c.gpuCount === null
      ? `${pick.neededGpus} GPUs because a model is split over 2, 4 or 8`
      : null,
    gpuCount > pick.neededGpus ? `rented ${offer.minGpus} GPUs at least` : null,
    `${usd(offer.pricePerGpuHourMicros)} per GPU-hour${gpuCount === 1 ? '' : `, ${usd(pick.hourlyMicros)}/hour for ${gpuCount}`}`,
    budget(c) === null ? null : pick.unmet.includes('budget') ? `over the budget of ${budget(c)}` : 'within budget',
    pick.unmet.includes('gpu_count') ? `only ${offer.freeGpus} free on one machine` : `${offer.freeGpus} free`,
    `${countryPlace(offer.location).label} (${offer.location})${pick.unmet.includes('location') ? `, not ${placesPhrase(c)}` : ''}`,
    offer.verification === 'verified' ? 'verified provider' : 'provider not verified',
    pick.unmet.includes('gpu_model') ? 'not the GPU asked for' : null,
    pick.matchingOffers > 1 ? `${pick.matchingOffers} offers like it` : null,
  ];
  return parts.filter((part): part is string => part !== null).join('; ');
}

/** "4 × A100_80GB at $6.00/hour (Germany, verified)". */
function rental(pick: GpuPick): string {
  const what = pick.gpuCount === 1 ? pick.offer.gpuName : `${pick.gpuCount} × ${pick.offer.gpuName}`;
  return `${what} at ${usd(pick.hourlyMicros)}/hour (${countryPlace(pick.offer.location).label}, ${pick.offer.verification === 'verified' ? 'verified' : 'not verified'})`;
}

/** Why the nearest alternative is not a suggestion, constraint by constraint. */
function missing(unmet: readonly Unmet[], c: RecommendationConstraints): string {
  const says: Record<Unmet, () => string> = {
    budget: () => `what fits costs more than ${budget(c)}`,
    location: () => `nothing that fits is in ${placesPhrase(c)}`,
    gpu_model: () =>
      c.gpuModels.length === 0
        ? `${c.gpusNotOffered.join(', ')} ${c.gpusNotOffered.length === 1 ? 'is' : 'are'} not offered now`
        : `no ${c.gpuModels.join(' or ')} offer fits the rest`,
    gpu_count: () => `no machine has the GPUs needed free at once`,
    vram: () => `no offer has enough GPU memory`,
  };
  return unmet.map((miss) => says[miss]()).join('; ');
}

/** The recommendation without a model: the ranked facts in a template (free). */
export function rulesText(c: RecommendationConstraints, ranking: Ranking, offersOnline: number): string {
  if (offersOnline === 0)
    return 'No GPUs are on offer right now, so there is nothing to recommend; try again in a while.';
  const asked = askedPhrases(c);
  const [first, ...rest] = ranking.suggestions;
  if (first !== undefined && asked.length === 0) {
    return `Your request names no model size, memory, budget, GPU count, place or GPU model, so here are the cheapest GPUs on offer now: ${ranking.suggestions.map(rental).join('; ')}.`;
  }
  if (first !== undefined) {
    const others = rest.length === 0 ? '' : ` Also fitting: ${rest.map(rental).join('; ')}.`;
    return `For ${asked.join(', ')}: rent ${rental(first)}.${others}${assumption(c)}`;
  }
  const because = missing(ranking.alternatives[0]?.unmet ?? [], c);
  const nearest = ranking.alternatives
    .map((pick) => `${rental(pick)}, ${pick.unmet.map((m) => MISS_NOTE[m]).join(', ')}`)
    .join('; ');
  return `Nothing on offer now meets all of: ${asked.join('; ')}. ${because.charAt(0).toUpperCase()}${because.slice(1)}. Nearest: ${nearest}.${assumption(c)}`;
}

const MISS_NOTE: Record<Unmet, string> = {
  budget: 'over the budget',
  location: 'elsewhere',
  gpu_model: 'a different GPU',
  gpu_count: 'too few GPUs free',
  vram: 'too little memory',
};

/**
 * What a configured model writes from (docs/configuration.md, RECOMMENDATION_MODEL): the query and the ranked
 * facts, and the instruction to name only the GPUs listed, so the text never recommends hardware nobody offers.
 */
export function recommendationPrompt(
  query: string,
  c: RecommendationConstraints,
  ranking: Ranking,
): { role: 'system' | 'user'; content: string }[] {
  const asked = askedPhrases(c);
  const picks = ranking.suggestions.length > 0 ? ranking.suggestions : ranking.alternatives;
  const heading =
    ranking.suggestions.length > 0
      ? 'Offers that meet the request, best first:'
      : `Nothing on offer meets all of it (${missing(ranking.alternatives[0]?.unmet ?? [], c)}). Nearest alternatives, nearest first:`;
  const lines = picks.map((pick, i) => `${i + 1}. ${rental(pick)}: ${pickReason(pick, c)}`);
  return [
    {
      role: 'system',
      content:
        'You advise renters of a GPU marketplace. Write a short recommendation (at most four sentences, plain text, no lists or markdown) for the request. ' +
        'Name only GPUs from the list you are given and use only its facts: prices, memory, GPUs free, places. Say which one you would rent and why; ' +
        'if nothing meets the request, say what is missing and which alternative comes nearest.',
    },
    {
      role: 'user',
      content: [
        `Request: ${query}`,
        `Read as: ${asked.length === 0 ? 'no constraints' : asked.join(', ')}`,
        heading,
        ...lines,
        assumption(c).trim(),
      ]
        .join('\n')
        .trim(),
    },
  ];
}

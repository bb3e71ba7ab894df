import type { components } from '../../../generated/openapi.js';
import { microsToUsd } from '../billing/money.js';
import type { CallerDiscounts, ModelCatalog } from '../catalog/model-catalog.js';
import { NO_DISCOUNTS } from '../pricing/index.js';
import type { RouteTable } from '../routing/route-table.js';
import { planCost, planImage } from './image-plan.js';

type ImageRequest = components['schemas']['ImageRequest'];
type ImageEstimate = components['schemas']['ImageEstimate'];

/**
 * SPEC 4.3 estimates: the request planned as the kickoff plans it and priced by the function the charge uses, at
 * list price and at the caller's (its personal and tier discounts), with the kickoff's route verdict (an unavailable
 * model is refused, SPEC 2.5). Nothing is held, rendered or debited.
 */
export function estimateImage(
  deps: { catalog: ModelCatalog; routes: RouteTable },
  discounts: CallerDiscounts,
  request: ImageRequest,
): ImageEstimate {
  const plan = planImage(deps.catalog, request);
  deps.routes.chain(plan.entry.slug, 'image');
  return {
    model: plan.entry.slug,
    n: plan.n,
    size: plan.size,
    aspect_ratio: plan.aspectRatio,
    tier: plan.tier ?? null,
    unit_price_usd: microsToUsd(planCost(plan, 1, NO_DISCOUNTS)),
    estimated_cost_usd: microsToUsd(planCost(plan, plan.n, NO_DISCOUNTS)),
    discounted_cost_usd: microsToUsd(planCost(plan, plan.n, discounts)),
  };
}

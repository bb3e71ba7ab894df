import type { components } from '../../../generated/openapi.js';
import { ApiError } from '../../errors/api-error.js';
import type { CallerDiscounts, ModelCatalog } from '../catalog/model-catalog.js';
import type { RouteTable } from '../routing/route-table.js';

type RestorationCatalog = components['schemas']['RestorationCatalog'];

const CREDIT_RULE: Record<'image' | 'video', string> = {
  image: 'about 1 credit per 24 megapixels of output, rounded up; charged on completion',
  video: '1 credit per 24 megapixels of output frames at 30 frames a second, rounded up; charged on completion',
};

/**
 * SPEC 4.3 "live restoration catalog": the credit-metered rows of the catalog with their price per credit, at list
 * and at the caller's discount, and whether a route of this deployment can restore with them now.
 */
export function restorationCatalog(
  catalog: ModelCatalog,
  routes: RouteTable,
  discounts: CallerDiscounts,
): RestorationCatalog {
  const listed = new Map(catalog.view(null).models.map((row) => [row.slug, row]));
  const models = catalog
    .view(discounts)
    .models.filter((row) => row.credit_metered && (row.media_kind === 'image' || row.media_kind === 'video'))
    .map((row) => {
      const media = row.media_kind as 'image' | 'video';
      const reason = row.available ? routeVerdict(routes, row.slug) : row.unavailable_reason;
      return {
        slug: row.slug,
        label: row.label,
        description: row.description,
        media,
        usd_per_credit: listed.get(row.slug)?.usd_per_credit ?? 0,
        discounted_usd_per_credit: row.usd_per_credit ?? 0,
        credit_rule: CREDIT_RULE[media],
        output_formats: row.capabilities.output_formats ?? [],
        ...(row.capabilities.resolutions === undefined ? {} : { resolutions: row.capabilities.resolutions }),
        available: reason === null,
        unavailable_reason: reason,
      };
    });
  return { models };
}

/** Why no route restores with the model, or null when one does. */
function routeVerdict(routes: RouteTable, slug: string): string | null {
  try {
    routes.chain(slug, 'restoration');
    return null;
  } catch (err) {
    if (err instanceof ApiError) return err.message;
    throw err;
  }
}

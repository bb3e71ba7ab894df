import type { CatalogFileEntry } from '../../src/domain/catalog/catalog-file.js';
import { UNKNOWN_RELEASE_TIME } from '../../src/domain/catalog/model-catalog.js';

/** Every field a catalog entry carries on the wire (`GET /v1/llm/models/catalog`), sorted. */
export const CATALOG_ENTRY_FIELDS = [
  'slug',
  'label',
  'description',
  'provider',
  'category',
  'media_kind',
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
  'user_discount_percent',
  'user_tier_discounts',
  'tokens_per_sec',
  'tokens_per_sec_approx',
  'credit_metered',
  'usd_per_credit',
  'capabilities',
  'available',
  'unavailable_reason',
  'sandbox',
  'aliases',
].sort();

/** A synthetic catalog row with every field present; pass what the test is about. */
export function catalogRow(
  fields: Partial<CatalogFileEntry> & Pick<CatalogFileEntry, 'slug' | 'media_kind'>,
): CatalogFileEntry {
  return {
    label: fields.slug.toUpperCase(),
    description: `About ${fields.slug}`,
    provider: 'acme',
    category: 'balanced',
    retail_input_usd_per_mtok: null,
    retail_output_usd_per_mtok: null,
    retail_cached_input_usd_per_mtok: null,
    retail_usd_per_image: null,
    retail_usd_per_unit: null,
    video_billing_unit: null,
    audio_billing_unit: null,
    pricing: null,
    discounted: false,
    discount_percent_label: null,
    tokens_per_sec: null,
    tokens_per_sec_approx: true,
    credit_metered: false,
    usd_per_credit: null,
    capabilities: {},
    available: true,
    unavailable_reason: null,
    aliases: [],
    created: UNKNOWN_RELEASE_TIME,
    owned_by: 'acme',
    ...fields,
  };
}

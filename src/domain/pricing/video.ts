/** Video (SPEC 2.12, 3.2, 4.6): per second or per clip, by resolution tier, and the parametric family's retail. */

import type { Micros } from '../billing/money.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts } from '../catalog/model-catalog.js';
import { hasTier, millionths, missingPrice, ONE_UNIT, personalRate, tierRate, unitCost } from './rates.js';

export interface VideoRequest {
  /** Output length in seconds (the request's `duration`; for a final, the draft's). */
  seconds: number;
  /** `480p`, `720p`, `1080p`, `4k`, ...: the resolution the job renders at, as the row's `pricing` names it. */
  resolution: string;
  /** A reference video (`video_url`) was sent. */
  referenceVideo?: boolean;
  /** `standard` / `pro` / `master` / `turbo` where the model has modes; priced when `pricing` has `<res>_<mode>`. */
  mode?: string;
}

export interface VideoUsage extends VideoRequest {
  /** Measured length of the reference video; required where the reference length is billed (`vidA-2`). */
  referenceSeconds?: number;
}

/**
 * Rows that bill the reference video's length on top of the output (SPEC 4.6: on `vidA-2` the kickoff estimate
 * assumes the worst-case reference length and cost is recomputed from the measured one). The catalog has no
 * field for this yet, hence the slug list.
 */
const REFERENCE_LENGTH_BILLED = new Set(['vidA-2']);

export function billsReferenceLength(entry: CatalogFileEntry): boolean {
  return REFERENCE_LENGTH_BILLED.has(entry.slug);
}

/**
 * What a rendered clip costs. The rate, first match wins:
 * - `pricing["<res>_reference_video"]` with a reference video (vidA-2-5: $1.03/s at 1080p, output seconds only);
 * - `pricing["<res>_<mode>"]` for a mode (vidK-2-1 `1080p_master`);
 * - `pricing["<res>_<seconds>s"]` on per-clip rows (`768p_6s`);
 * - `pricing["<res>"]` (vidA-2-5 480p draft $0.198/s, 1080p $0.86/s direct or final; vidA-2 720p $0.272/s);
 * - `retail_usd_per_unit` when the row has no `pricing` (one price at every resolution).
 * A row that prices a reference video or a mode at some resolution but not at this one, or that has `pricing`
 * without this resolution, throws rather than bill a cheaper rate. Per-second rows bill `seconds` (plus the
 * reference length on `billsReferenceLength` rows); `video_billing_unit: 'video'` rows bill one clip.
 */
export function videoCost(entry: CatalogFileEntry, usage: VideoUsage, discounts: CallerDiscounts): Micros {
  const rate = videoRate(entry, usage, discounts);
  return unitCost(billedQuantity(entry, usage, usage.referenceSeconds), rate);
}

export interface VideoHoldOptions {
  /** The longest reference video the model accepts; required on `billsReferenceLength` rows with a reference. */
  worstCaseReferenceSeconds?: number;
}

/** The kickoff estimate and hold: `videoCost` with the worst-case reference length where it is billed. */
export function videoHoldEstimate(
  entry: CatalogFileEntry,
  request: VideoRequest,
  discounts: CallerDiscounts,
  opts: VideoHoldOptions = {},
): Micros {
  const rate = videoRate(entry, request, discounts);
  return unitCost(billedQuantity(entry, request, opts.worstCaseReferenceSeconds), rate);
}

function videoRate(entry: CatalogFileEntry, request: VideoRequest, discounts: CallerDiscounts): Micros {
  if (entry.media_kind !== 'video')
    throw new Error(`catalog row "${entry.slug}" is not a video model (media_kind ${entry.media_kind})`);
  if (entry.pricing === null) return personalRate(entry, 'retail_usd_per_unit', discounts);
  const { resolution } = request;
  const qualifiers = [request.referenceVideo === true ? 'reference_video' : undefined, request.mode];
  for (const qualifier of qualifiers) {
    if (qualifier === undefined) continue;
    const tier = `${resolution}_${qualifier}`;
    if (hasTier(entry, tier)) return tierRate(entry, tier, discounts);
    if (Object.keys(entry.pricing).some((t) => t.endsWith(`_${qualifier}`)))
      throw missingPrice(entry, `pricing["${tier}"]`);
  }
  const clipTier = `${resolution}_${request.seconds}s`;
  if (entry.video_billing_unit === 'video' && hasTier(entry, clipTier)) return tierRate(entry, clipTier, discounts);
  return tierRate(entry, resolution, discounts);
}

function billedQuantity(entry: CatalogFileEntry, request: VideoRequest, referenceSeconds: number | undefined): bigint {
  if (entry.video_billing_unit === 'video') return ONE_UNIT;
  if (entry.video_billing_unit !== 'second') throw missingPrice(entry, 'video_billing_unit');
  const output = millionths(request.seconds, 'seconds');
  if (request.referenceVideo !== true || !billsReferenceLength(entry)) return output;
  if (referenceSeconds === undefined) {
    throw new RangeError(
      `"${entry.slug}" bills the reference video's length: pass the measured (or worst-case) reference seconds`,
    );
  }
  return output + millionths(referenceSeconds, 'referenceSeconds');
}

/**
 * The parametric video family (SPEC 4.6): `discount_percent_label` 10 and the 720p/1080p/4k resolution set.
 * Its catalog rates are `parametricRetail` of the official reference price per configuration.
 */
export function isParametricVideo(entry: CatalogFileEntry): boolean {
  const resolutions = [...(entry.capabilities.resolutions ?? [])].sort().join();
  return (
    entry.media_kind === 'video' &&
    entry.discount_percent_label === 10 &&
    resolutions === ['1080p', '4k', '720p'].join()
  );
}

/**
 * Retail of one parametric configuration (SPEC 4.6): the official reference price × 0.90, never below the source
 * cost + 10 %. Each side is rounded half-up once; the larger wins.
 */
export function parametricRetail(prices: { referenceMicros: Micros; sourceCostMicros: Micros }): Micros {
  const { referenceMicros, sourceCostMicros } = prices;
  if (referenceMicros < 0n || sourceCostMicros < 0n) throw new RangeError('parametric prices must be non-negative');
  const retail = (referenceMicros * 90n + 50n) / 100n;
  const floor = (sourceCostMicros * 110n + 50n) / 100n;
  return retail > floor ? retail : floor;
}

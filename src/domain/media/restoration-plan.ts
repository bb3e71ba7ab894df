import type { components } from '../../../generated/openapi.js';
import { inspectImage } from '../../adapters/image-codec/sharp-images.js';
import { probeVideo } from '../../adapters/video-codec/video-files.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts, ModelCatalog } from '../catalog/model-catalog.js';
import { MEDIA_RETENTION_MS } from '../limits.js';
import { creditsForMegapixels, restorationCost } from '../pricing/index.js';
import type { DeliveredMedia, Measured, MediaPlan, MediaProbe, MediaRules } from './media-rules.js';

type TopazImageRequest = components['schemas']['TopazImageRequest'];
type TopazVideoRequest = components['schemas']['TopazVideoRequest'];

/** The output an image restoration may make (ours: the spec sets none); larger is 400 naming `scale`. */
const MAX_OUTPUT_MEGAPIXELS = 200;
const DEFAULT_SCALE = 2;
/** Video restorations are counted at this frame rate, whatever the source's (ours: the spec sets none). */
const COUNTED_FPS = 30;
const OUTPUT_HEIGHT: Record<string, number> = { '1080p': 1080, '4k': 2160 };

/** SPEC 4.4: a restoration model of the catalog restoring `media`, else 400 model_not_found. */
function restorationModel(catalog: ModelCatalog, slug: string, media: 'image' | 'video'): CatalogFileEntry {
  const entry = catalog.find(slug);
  if (entry === undefined || !entry.credit_metered || entry.media_kind !== media) {
    throw new ApiError(
      'model_not_found',
      `Model "${slug}" is not a ${media} restoration model (see GET /v1/llm/topaz/models)`,
      { meta: { slug } },
    );
  }
  return entry;
}

function outputFormat(entry: CatalogFileEntry, asked: string | undefined, fallback: string): string {
  const formats = entry.capabilities.output_formats ?? [fallback];
  const format = asked ?? fallback;
  if (!formats.includes(format))
    throw invalidField(['body', 'output_format'], `${entry.slug} delivers ${formats.join(', ')}`);
  return format;
}

/** Credits for `megapixels` of output, and their price at `discounts` (SPEC 4.6: rounded up, 1 per 24 MP). */
function credits(
  entry: CatalogFileEntry,
  megapixels: number,
  discounts: CallerDiscounts,
): { units: number; micros: bigint } {
  const units = Math.max(1, creditsForMegapixels(megapixels));
  return { units, micros: restorationCost(entry, units, discounts) };
}

/**
 * Image restoration: the source's measured pixels × `scale`² is the output, billed at its credits. Before the
 * source is measured (the kickoff's first check) the plan holds one credit, the least a restoration costs.
 */
function planImageRestoration(
  catalog: ModelCatalog,
  request: TopazImageRequest,
  discounts: CallerDiscounts,
  measured: Measured = {},
): MediaPlan {
  const entry = restorationModel(catalog, request.model, 'image');
  const format = outputFormat(entry, request.output_format, 'png');
  const scale = request.scale ?? DEFAULT_SCALE;
  const source = measured.image_url;
  const width = source?.width === undefined || source.width === null ? null : Math.round(source.width * scale);
  const height = source?.height === undefined || source.height === null ? null : Math.round(source.height * scale);
  const megapixels = width === null || height === null ? 0 : (width * height) / 1e6;
  if (megapixels > MAX_OUTPUT_MEGAPIXELS) {
    throw new ApiError(
      'upstream_validation_error',
      `scale: ${scale}× makes ${megapixels.toFixed(0)} megapixels, above the ${MAX_OUTPUT_MEGAPIXELS} a restoration may make`,
      {
        meta: {
          field: 'scale',
          hint: `choose a scale of at most ${Math.sqrt((MAX_OUTPUT_MEGAPIXELS * 1e6) / ((source?.width ?? 1) * (source?.height ?? 1))).toFixed(2)}`,
        },
      },
    );
  }
  const price = credits(entry, megapixels, discounts);
  return {
    entry,
    outputFormat: format,
    params: { image_url: request.image_url, scale, ...(width === null ? {} : { width, height }) },
    inputs: {
      model: entry.slug,
      scale,
      output_format: format,
      ...(width === null ? {} : { output_width: width, output_height: height, credits: price.units }),
    },
    unit: 'credit',
    units: price.units,
    holdMicros: price.micros,
  };
}

/** Video restoration: the source's measured length × 30 frames of the output size, billed at their credits. */
function planVideoRestoration(
  catalog: ModelCatalog,
  request: TopazVideoRequest,
  discounts: CallerDiscounts,
  measured: Measured = {},
): MediaPlan {
  const entry = restorationModel(catalog, request.model, 'video');
  const format = outputFormat(entry, request.output_format, 'mp4');
  const resolution = request.resolution ?? '1080p';
  const resolutions = entry.capabilities.resolutions ?? ['1080p'];
  if (!resolutions.includes(resolution))
    throw new ApiError('no_provider_available', `resolution: ${entry.slug} renders ${resolutions.join(', ')}`, {
      meta: { slug: entry.slug, field: 'resolution' },
    });
  const source = measured.video_url;
  const height = OUTPUT_HEIGHT[resolution]!;
  const aspect = source?.width && source.height ? source.width / source.height : 16 / 9;
  const width = 2 * Math.round((height * aspect) / 2);
  const seconds = source?.seconds ?? 0;
  const price = credits(entry, (seconds * COUNTED_FPS * width * height) / 1e6, discounts);
  return {
    entry,
    outputFormat: format,
    params: {
      video_url: request.video_url,
      resolution,
      width,
      height,
      ...(source === undefined ? {} : { duration: seconds }),
    },
    inputs: {
      model: entry.slug,
      resolution,
      output_format: format,
      ...(source === undefined ? {} : { output_width: width, output_height: height, seconds, credits: price.units }),
    },
    unit: 'credit',
    units: price.units,
    holdMicros: price.micros,
  };
}

/** Charged on completion by what was delivered, never more credits than held. */
function deliveredCredits(
  plan: MediaPlan,
  delivered: readonly DeliveredMedia[],
  discounts: CallerDiscounts,
  frames: (output: DeliveredMedia) => number,
) {
  const megapixels = delivered.reduce(
    (sum, output) => sum + (frames(output) * (output.width ?? 0) * (output.height ?? 0)) / 1e6,
    0,
  );
  const units = Math.min(Math.max(1, creditsForMegapixels(megapixels)), plan.units);
  return { units, micros: restorationCost(plan.entry, units, discounts) };
}

async function probeImage(bytes: Buffer): Promise<MediaProbe | null> {
  const image = await inspectImage(bytes);
  return image === null ? null : { ...image, durationSeconds: null };
}

export const IMAGE_RESTORATION: MediaRules<TopazImageRequest> = {
  kind: 'restoration',
  jobKind: 'topaz_image',
  retentionMs: MEDIA_RETENTION_MS,
  typedFailures: true,
  plan: planImageRestoration,
  mediaFields: (request) => [{ field: 'image_url', url: request.image_url, kind: 'image' }],
  charge: (plan, delivered, discounts) => deliveredCredits(plan, delivered, discounts, () => 1),
  probe: probeImage,
};

export const VIDEO_RESTORATION: MediaRules<TopazVideoRequest> = {
  kind: 'restoration',
  jobKind: 'topaz_video',
  retentionMs: MEDIA_RETENTION_MS,
  typedFailures: true,
  plan: planVideoRestoration,
  mediaFields: (request) => [{ field: 'video_url', url: request.video_url, kind: 'video' }],
  charge: (plan, delivered, discounts) =>
    deliveredCredits(plan, delivered, discounts, (output) => (output.durationSeconds ?? 0) * COUNTED_FPS),
  probe: probeVideo,
};

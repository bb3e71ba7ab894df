import type { components } from '../../../generated/openapi.js';
import { probeVideo } from '../../adapters/video-codec/video-files.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts, ModelCatalog } from '../catalog/model-catalog.js';
import { DRAFT_FINAL_WINDOW_MS, VIDEO_RETENTION_MS } from '../limits.js';
import {
  billsReferenceLength,
  type VideoRequest as PricedVideo,
  videoCost,
  videoHoldEstimate,
} from '../pricing/index.js';
import type { Measured, MediaPlan, MediaRules } from './media-rules.js';

type VideoRequest = components['schemas']['VideoRequest'];

/** SPEC 3.2: the draft of the draft-capable SKU renders at this resolution, and its final at FINAL_RESOLUTION. */
const DRAFT_RESOLUTION = '480p';
export const FINAL_RESOLUTION = '1080p';

/** SPEC 2.12: the tasks that render one new clip; the draft-capable family takes no others (no edit, no extension). */
const ONE_CLIP_TASKS = ['text_to_video', 'image_to_video'];

/** Fields the spec refuses outright (2.12), with what to do instead. */
const REFUSED: Record<string, string> = {
  bitrate: 'the bitrate is chosen by the model; leave it out',
  bitrate_mode: 'the bitrate is chosen by the model; leave it out',
  codec: 'clips are delivered as H.264 (mp4, mov) or VP8/VP9 (webm): choose output_format instead',
};

/** The media a request sends, by field: each is hosted by us before dispatch. */
function videoMediaFields(request: VideoRequest): { field: string; url: string; kind: 'image' | 'video' }[] {
  return [
    ...(request.image_url === undefined
      ? []
      : [{ field: 'image_url', url: request.image_url, kind: 'image' as const }]),
    ...(request.video_url === undefined
      ? []
      : [{ field: 'video_url', url: request.video_url, kind: 'video' as const }]),
    ...(request.last_frame_url === undefined
      ? []
      : [{ field: 'last_frame_url', url: request.last_frame_url, kind: 'image' as const }]),
    ...(request.reference_image_urls ?? []).map((url, i) => ({
      field: `reference_image_urls.${i}`,
      url,
      kind: 'image' as const,
    })),
  ];
}

/**
 * SPEC 2.12, 7.4: every field rule checked up front, the defaults filled in, the clip priced by the function the
 * charge uses (`videoHoldEstimate`; on `vidA-2` with a reference video, at the longest reference it accepts).
 */
function planVideo(
  catalog: ModelCatalog,
  request: VideoRequest,
  discounts: CallerDiscounts,
  measured: Measured = {},
): MediaPlan {
  const entry = catalog.find(request.model);
  if (entry === undefined || entry.media_kind !== 'video' || entry.credit_metered) {
    throw new ApiError('model_not_found', `Model "${request.model}" is not a video generation model of the catalog`, {
      meta: { slug: request.model },
    });
  }
  for (const field of Object.keys(REFUSED)) {
    if (field in request)
      throw new ApiError('invalid_request', `${field}: not accepted`, { meta: { field, hint: REFUSED[field] } });
  }
  const caps = entry.capabilities;
  const notServed = (field: string, what: string) =>
    new ApiError('no_provider_available', `${field}: ${entry.slug} ${what}`, { meta: { slug: entry.slug, field } });
  const duration = request.duration ?? caps.durations?.[0] ?? caps.duration_range?.min ?? 5;
  if (caps.durations !== undefined && !caps.durations.includes(duration))
    throw notServed('duration', `renders ${caps.durations.join(', ')} seconds`);
  if (caps.duration_range !== undefined && (duration < caps.duration_range.min || duration > caps.duration_range.max)) {
    throw notServed('duration', `renders ${caps.duration_range.min} to ${caps.duration_range.max} seconds`);
  }
  const resolutions = caps.resolutions ?? [];
  const resolution =
    request.resolution ??
    (resolutions.includes(FINAL_RESOLUTION) ? FINAL_RESOLUTION : resolutions.at(-1)) ??
    FINAL_RESOLUTION;
  if (resolutions.length > 0 && !resolutions.includes(resolution))
    throw notServed('resolution', `renders ${resolutions.join(', ')}`);
  if (request.mode !== undefined && !(caps.modes ?? []).includes(request.mode))
    throw notServed('mode', caps.modes === undefined ? 'has no modes' : `has modes ${caps.modes.join(', ')}`);
  if (request.audio === true && caps.audio !== true) throw notServed('audio', 'renders no audio');
  const references = request.reference_image_urls ?? [];
  if (references.length > 0 && caps.reference_to_video !== true)
    throw notServed(
      'reference_image_urls',
      'has no reference-to-video route: send image_url, or use a model with reference input',
    );
  if (references.length > (caps.max_reference_images ?? Number.POSITIVE_INFINITY))
    throw invalidField(
      ['body', 'reference_image_urls'],
      `${entry.slug} takes at most ${caps.max_reference_images} reference images`,
    );
  checkInputs(entry, request, resolution);
  if (
    request.video_task !== undefined &&
    !ONE_CLIP_TASKS.includes(request.video_task) &&
    inDraftFamily(catalog, entry)
  ) {
    throw new ApiError('invalid_request', `video_task: ${entry.slug} renders one new clip per request`, {
      meta: {
        field: 'video_task',
        hint: `editing and extension are not supported on the ${entry.slug} family: use ${ONE_CLIP_TASKS.join(' or ')}, or leave video_task out`,
      },
    });
  }
  const outputFormat = request.output_format ?? 'mp4';
  const formats = caps.output_formats ?? ['mp4'];
  if (!formats.includes(outputFormat))
    throw invalidField(['body', 'output_format'], `${entry.slug} delivers ${formats.join(', ')}`);
  const priced: PricedVideo = {
    seconds: duration,
    resolution,
    ...(request.video_url === undefined ? {} : { referenceVideo: true }),
    ...(request.mode === undefined ? {} : { mode: request.mode }),
  };
  const holdMicros = priceOrRefuse(entry, priced, discounts, notServed);
  const reference = measured.video_url?.seconds;
  // The hold covers the longest reference the model takes (SPEC 4.6); a longer one would be billed beyond it.
  if (reference !== undefined && billsReferenceLength(entry) && reference > worstReferenceSeconds(entry)) {
    throw new ApiError(
      'upstream_validation_error',
      `video_url: ${reference.toFixed(1)} s is longer than the ${worstReferenceSeconds(entry)} s ${entry.slug} takes`,
      {
        meta: { field: 'video_url', hint: `send a reference video of at most ${worstReferenceSeconds(entry)} seconds` },
      },
    );
  }
  const draft = caps.draft === true && resolution === DRAFT_RESOLUTION;
  const config = {
    resolution,
    audio: request.audio ?? false,
    duration,
    task: request.video_task ?? (request.image_url === undefined ? 'text_to_video' : 'image_to_video'),
    mode: request.mode ?? null,
  };
  const { model: _model, output_quality: quality, ...rest } = request;
  return {
    entry,
    outputFormat,
    params: { ...rest, duration, resolution, aspect_ratio: request.aspect_ratio ?? caps.aspect_ratios?.[0] ?? '16:9' },
    inputs: {
      model: entry.slug,
      ...config,
      output_format: outputFormat,
      ...(draft ? { draft: true } : {}),
      ...(quality === undefined
        ? {}
        : {
            output_quality: quality,
            notes: 'output_quality is accepted and has no effect: clips render at the upstream default of 95',
          }),
    },
    config,
    // A draft's inputs serve its final too, made up to 7 days later and rendered within its own record's life.
    ...(draft ? { keepInputsMs: DRAFT_FINAL_WINDOW_MS + VIDEO_RETENTION_MS } : {}),
    unit: entry.video_billing_unit === 'video' ? 'clip' : 'second',
    units: entry.video_billing_unit === 'video' ? 1 : duration,
    holdMicros,
  };
}

/** 7.4's input rules: the media each kind of model needs, and what the draft-capable SKU refuses at 1080p. */
function checkInputs(entry: CatalogFileEntry, request: VideoRequest, resolution: string): void {
  const caps = entry.capabilities;
  if (caps.motion_control === true && (request.image_url === undefined || request.video_url === undefined)) {
    throw invalidField(
      ['body', request.image_url === undefined ? 'image_url' : 'video_url'],
      `${entry.slug} is motion control: send both image_url and video_url`,
    );
  }
  if (caps.image_to_video_only === true && request.image_url === undefined)
    throw invalidField(
      ['body', 'image_url'],
      `${entry.slug} animates an image: send image_url (an https link or a data URI)`,
    );
  if (request.character_orientation !== undefined && caps.motion_control !== true)
    throw invalidField(['body', 'character_orientation'], 'is for motion-control models only');
  if (request.aspect_ratio !== undefined) {
    const aspects = caps.aspect_ratios ?? [];
    if (!aspects.includes(request.aspect_ratio))
      throw invalidField(
        ['body', 'aspect_ratio'],
        aspects.length === 0 ? `${entry.slug} takes no aspect_ratio` : `${entry.slug} takes ${aspects.join(', ')}`,
      );
    if (request.aspect_ratio === 'auto' && request.image_url === undefined && request.video_url === undefined)
      throw invalidField(['body', 'aspect_ratio'], 'auto needs an image_url or a video_url to follow');
  }
  if (caps.draft === true && resolution === FINAL_RESOLUTION) {
    for (const field of ['last_frame_url', 'video_task'] as const) {
      if (request[field] !== undefined)
        throw invalidField(['body', field], `${entry.slug} takes no ${field} at ${FINAL_RESOLUTION}`);
    }
  }
}

function priceOrRefuse(
  entry: CatalogFileEntry,
  priced: PricedVideo,
  discounts: CallerDiscounts,
  notServed: (field: string, what: string) => ApiError,
) {
  try {
    return videoHoldEstimate(
      entry,
      priced,
      discounts,
      billsReferenceLength(entry) ? { worstCaseReferenceSeconds: worstReferenceSeconds(entry) } : {},
    );
  } catch {
    // The catalog prices no such clip (a resolution without a `pricing` tier): nothing may be sold at a guessed price.
    throw notServed(
      'resolution',
      `has no price for ${priced.resolution}${priced.mode === undefined ? '' : ` in ${priced.mode} mode`}`,
    );
  }
}

/** SPEC 2.12: the draft-capable SKU and its variants, named after it (`vidA-2-5`, `vidA-2-5-fast`, `vidA-2-5-mini`). */
function inDraftFamily(catalog: ModelCatalog, entry: CatalogFileEntry): boolean {
  const parts = entry.slug.split('-');
  return parts.some((_, i) => catalog.find(parts.slice(0, i + 1).join('-'))?.capabilities.draft === true);
}

/** SPEC 4.6: the longest reference video a model that bills its length accepts (its longest output). */
function worstReferenceSeconds(entry: CatalogFileEntry): number {
  return entry.capabilities.duration_range?.max ?? Math.max(...(entry.capabilities.durations ?? [0]));
}

/** Video jobs: held at the clip's price, charged for the seconds delivered (never more than asked), once. */
export const VIDEO: MediaRules<VideoRequest> = {
  kind: 'video',
  retentionMs: VIDEO_RETENTION_MS,
  typedFailures: true,
  refusalsForVerdict: 2,
  plan: planVideo,
  mediaFields: videoMediaFields,
  charge: (plan, delivered, discounts, measured) => {
    const seconds = Math.min(delivered[0]?.durationSeconds ?? 0, Number(plan.params.duration));
    const priced = {
      seconds: Math.round(seconds * 1000) / 1000,
      resolution: String(plan.params.resolution),
      ...(plan.params.video_url === undefined ? {} : { referenceVideo: true }),
      ...(plan.params.mode === undefined ? {} : { mode: String(plan.params.mode) }),
    };
    const referenceSeconds = measured.video_url?.seconds;
    const micros = videoCost(
      plan.entry,
      { ...priced, ...(referenceSeconds === undefined ? {} : { referenceSeconds }) },
      discounts,
    );
    return { units: plan.unit === 'clip' ? 1 : priced.seconds, micros };
  },
  probe: probeVideo,
};

import type { components } from '../../../generated/openapi.js';
import { probeAudio } from '../../adapters/audio-codec/audio-files.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import type { CallerDiscounts, ModelCatalog } from '../catalog/model-catalog.js';
import { MEDIA_RETENTION_MS } from '../limits.js';
import { audioCost } from '../pricing/index.js';
import type { MediaPlan, MediaRules } from './media-rules.js';

type MusicRequest = components['schemas']['MusicRequest'];

/** Without `duration`: half a minute, or the nearest the model's range allows. */
const DEFAULT_SECONDS = 30;

/**
 * Music (SPEC 4.4): the model must be a music model; `duration` within its range; `output_format` one of its
 * containers (none: mp3). Billed per second of delivered audio, every track (two for models that deliver two): the
 * hold is `duration` × tracks, the charge what was measured.
 */
function planMusic(catalog: ModelCatalog, request: MusicRequest, discounts: CallerDiscounts): MediaPlan {
  const entry = catalog.find(request.model);
  if (entry === undefined || entry.media_kind !== 'music') {
    throw new ApiError('model_not_found', `Model "${request.model}" is not a music model of the catalog`, {
      meta: { slug: request.model },
    });
  }
  const { duration_range: range, output_formats: formats = [], tracks_per_call: tracks = 1 } = entry.capabilities;
  const duration =
    request.duration ??
    Math.min(Math.max(DEFAULT_SECONDS, range?.min ?? DEFAULT_SECONDS), range?.max ?? DEFAULT_SECONDS);
  if (range !== undefined && (duration < range.min || duration > range.max)) {
    throw invalidField(
      ['body', 'duration'],
      `${entry.slug} renders ${range.min} to ${range.max} seconds (got ${duration})`,
    );
  }
  const outputFormat = request.output_format ?? (formats.includes('mp3') ? 'mp3' : formats[0]);
  if (outputFormat === undefined || !formats.includes(outputFormat))
    throw invalidField(['body', 'output_format'], `${entry.slug} delivers ${formats.join(', ')}`);
  const instrumental = request.instrumental ?? false;
  const params = {
    prompt: request.prompt,
    duration,
    instrumental,
    tracks,
    ...(request.lyrics === undefined ? {} : { lyrics: request.lyrics }),
  };
  return {
    entry,
    outputFormat,
    params,
    inputs: { model: entry.slug, duration, tracks, instrumental, output_format: outputFormat },
    unit: 'second',
    units: duration * tracks,
    holdMicros: audioCost(entry, duration * tracks, discounts),
  };
}

/**
 * Music jobs: held for the length asked, charged for the length delivered, up to the length asked (an encoder's
 * padding or a vendor's longer cut is not billed); failures carry only `error` (SPEC 7.5).
 */
export const MUSIC: MediaRules<MusicRequest> = {
  kind: 'music',
  retentionMs: MEDIA_RETENTION_MS,
  typedFailures: false,
  plan: planMusic,
  charge: (plan, delivered, discounts) => {
    const measured = Math.round(delivered.reduce((sum, track) => sum + (track.durationSeconds ?? 0), 0) * 1000) / 1000;
    const seconds = Math.min(measured, plan.units);
    return { units: seconds, micros: audioCost(plan.entry, seconds, discounts) };
  },
  probe: probeAudio,
};

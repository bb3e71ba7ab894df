import type { components } from '../../../generated/openapi.js';
import { probeAudio } from '../../adapters/audio-codec/audio-files.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import type { CallerDiscounts, ModelCatalog } from '../catalog/model-catalog.js';
import { MEDIA_RETENTION_MS } from '../limits.js';
import { audioCost } from '../pricing/index.js';
import type { MediaPlan, MediaRules } from './media-rules.js';

type SpeechRequest = components['schemas']['SpeechRequest'];

/**
 * Speech (SPEC 4.4): the model must be a speech model; `voice` one of its voices (none: its stock default voice);
 * `output_format` one of its containers (none: mp3 where listed); `input` within its `max_characters`. Billed per
 * character of `input` (Unicode code points), so the hold is the charge.
 */
function planSpeech(catalog: ModelCatalog, request: SpeechRequest, discounts: CallerDiscounts): MediaPlan {
  const entry = catalog.find(request.model);
  if (entry === undefined || entry.media_kind !== 'audio') {
    throw new ApiError('model_not_found', `Model "${request.model}" is not a speech model of the catalog`, {
      meta: { slug: request.model },
    });
  }
  const {
    voices = [],
    default_voice: defaultVoice,
    output_formats: formats = [],
    max_characters: maxCharacters,
  } = entry.capabilities;
  const voice = request.voice ?? defaultVoice ?? voices[0];
  if (voice === undefined || (voices.length > 0 && !voices.includes(voice))) {
    throw invalidField(['body', 'voice'], `${entry.slug} speaks in ${voices.join(', ')}`);
  }
  const outputFormat = request.output_format ?? (formats.includes('mp3') ? 'mp3' : formats[0]);
  if (outputFormat === undefined || !formats.includes(outputFormat))
    throw invalidField(['body', 'output_format'], `${entry.slug} delivers ${formats.join(', ')}`);
  const characters = [...request.input].length;
  if (maxCharacters !== undefined && characters > maxCharacters)
    throw invalidField(
      ['body', 'input'],
      `${entry.slug} reads at most ${maxCharacters} characters (got ${characters})`,
    );
  return {
    entry,
    outputFormat,
    params: { input: request.input, voice },
    inputs: { model: entry.slug, voice, output_format: outputFormat, characters },
    unit: 'character',
    units: characters,
    holdMicros: audioCost(entry, characters, discounts),
  };
}

/** Speech jobs: held and charged per character; each delivered file must be audio. */
export const SPEECH: MediaRules<SpeechRequest> = {
  kind: 'audio',
  retentionMs: MEDIA_RETENTION_MS,
  typedFailures: true,
  plan: planSpeech,
  charge: (plan, _delivered, discounts) => ({
    units: plan.units,
    micros: audioCost(plan.entry, plan.units, discounts),
  }),
  probe: probeAudio,
};

import { z } from 'zod';
import { isRecord } from '../../lib/is-record.js';
import { dataUriImageSize, type PixelSize } from '../images/image-header.js';

/**
 * How a model's vendor counts an image part as input tokens: the catalog row's `image_tokens` (config/catalog.json),
 * each with the page it was taken from. Rows without one are held at {@link DEFAULT_IMAGE_PART_TOKENS}.
 *
 * - `tiles` (OpenAI GPT-4o, GPT-4.1, GPT-5, o-series): the image is fitted in 2048×2048, then its shortest side is
 *   brought down to 768 px, and costs `base` + `per_tile` per 512-px tile; `detail: low` costs `base` alone.
 * - `patches` (OpenAI GPT-4.1-mini/nano, GPT-5-mini/nano, o4-mini): one token per 32-px patch, at most 1536 patches,
 *   times the model's `multiplier`; `detail` does not lower it.
 * - `pixels` (Anthropic Claude): width × height / `pixels_per_token`, at most `max_tokens` (larger images are scaled
 *   down to it); there is no `detail`.
 */
export const ImageTokenRuleSchema = z.discriminatedUnion('rule', [
  z.strictObject({
    rule: z.literal('tiles'),
    base: z.number().int().nonnegative(),
    per_tile: z.number().int().positive(),
    source: z.string().url(),
  }),
  z.strictObject({ rule: z.literal('patches'), multiplier: z.number().positive(), source: z.string().url() }),
  z.strictObject({
    rule: z.literal('pixels'),
    pixels_per_token: z.number().positive(),
    max_tokens: z.number().int().positive(),
    source: z.string().url(),
  }),
]);
export type ImageTokenRule = z.infer<typeof ImageTokenRuleSchema>;

/**
 * A vision model whose vendor rule the catalog does not carry: generous against the rules known (Claude at most
 * about 1,600, GPT-4o at most 1,445, Gemini 258 per 768-px tile, 1,120 at its high media resolution).
 */
export const DEFAULT_IMAGE_PART_TOKENS = 4_096;

const FIT_PX = 2048;
const SHORT_SIDE_PX = 768;
const TILE_PX = 512;
/** The most tiles a fitted image can have: 768 × 2048 px is 2 × 4 tiles. */
const MAX_TILES = 8;
const PATCH_PX = 32;
const MAX_PATCHES = 1536;

/** `detail` as the vendor reads it: anything but `low` may be high (`auto` lets the model choose). */
export type ImageDetail = 'low' | 'high';

/**
 * Tokens one image part costs under `rule`: exact for a size read from a data URI's header, else the worst case
 * for its `detail`, since URLs are not fetched on the request path.
 */
export function imagePartTokens(rule: ImageTokenRule | undefined, size: PixelSize | null, detail: ImageDetail): number {
  if (rule === undefined) return DEFAULT_IMAGE_PART_TOKENS;
  if (rule.rule === 'tiles')
    return detail === 'low' ? rule.base : rule.base + (size === null ? MAX_TILES : tiles(size)) * rule.per_tile;
  if (rule.rule === 'patches')
    return Math.ceil((size === null ? MAX_PATCHES : Math.min(patches(size), MAX_PATCHES)) * rule.multiplier);
  return size === null
    ? rule.max_tokens
    : Math.min(Math.ceil((size.width * size.height) / rule.pixels_per_token), rule.max_tokens);
}

function tiles({ width, height }: PixelSize): number {
  const fit = Math.min(1, FIT_PX / Math.max(width, height));
  const shorten = Math.min(1, SHORT_SIDE_PX / (Math.min(width, height) * fit));
  const scale = fit * shorten;
  return Math.ceil((width * scale) / TILE_PX) * Math.ceil((height * scale) / TILE_PX);
}

const patches = ({ width, height }: PixelSize): number => Math.ceil(width / PATCH_PX) * Math.ceil(height / PATCH_PX);

/** One image part of a chat request: its detail and, for a data URI, its size. */
export interface ImagePart {
  detail: ImageDetail;
  size: PixelSize | null;
}

/** The image parts of chat messages, in order; any shape tolerated (validation has run). */
export function imagePartsOf(messages: unknown): ImagePart[] {
  const found: ImagePart[] = [];
  for (const message of Array.isArray(messages) ? messages : []) {
    if (!isRecord(message) || !Array.isArray(message.content)) continue;
    for (const part of message.content) {
      if (!isRecord(part) || part.type !== 'image_url' || !isRecord(part.image_url)) continue;
      const { url, detail } = part.image_url;
      found.push({
        detail: detail === 'low' ? 'low' : 'high',
        size: typeof url === 'string' ? dataUriImageSize(url) : null,
      });
    }
  }
  return found;
}

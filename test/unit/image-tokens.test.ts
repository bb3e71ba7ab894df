/**
 * Image parts are held by the vendor's own rule (issue 23, item 1): OpenAI's tile and patch rules with the worked
 * examples of its vision guide, Anthropic's pixel rule, sizes read from a data URI's header without decoding it,
 * and the per-shape sizes an upstream reported.
 */
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import type { CatalogFileEntry } from '../../src/domain/catalog/catalog-file.js';
import { ImageHolds } from '../../src/domain/chat/image-holds.js';
import { dataUriImageSize } from '../../src/domain/images/image-header.js';
import {
  DEFAULT_IMAGE_PART_TOKENS,
  type ImageTokenRule,
  imagePartsOf,
  imagePartTokens,
} from '../../src/domain/text/image-tokens.js';
import { catalogRow } from '../setup/catalog-rows.js';

const SOURCE = 'https://platform.openai.com/docs/guides/images-vision#calculating-costs';
const GPT_4O: ImageTokenRule = { rule: 'tiles', base: 85, per_tile: 170, source: SOURCE };
const GPT_4O_MINI: ImageTokenRule = { rule: 'tiles', base: 2833, per_tile: 5667, source: SOURCE };
const GPT_41_MINI: ImageTokenRule = { rule: 'patches', multiplier: 1.62, source: SOURCE };
const CLAUDE: ImageTokenRule = {
  rule: 'pixels',
  pixels_per_token: 750,
  max_tokens: 1600,
  source: 'https://docs.anthropic.com/en/docs/build-with-claude/vision',
};
const size = (width: number, height: number) => ({ width, height });

describe('imagePartTokens', () => {
  it("tiles: OpenAI's worked examples, detail low = base, a URL at the worst case of 8 tiles", () => {
    expect(imagePartTokens(GPT_4O, size(1024, 1024), 'high')).toBe(765);
    expect(imagePartTokens(GPT_4O, size(2048, 4096), 'high')).toBe(1105);
    expect(imagePartTokens(GPT_4O, size(4096, 8192), 'low')).toBe(85);
    expect(imagePartTokens(GPT_4O, size(300, 200), 'high')).toBe(85 + 170);
    expect(imagePartTokens(GPT_4O, null, 'high')).toBe(85 + 8 * 170);
    expect(imagePartTokens(GPT_4O_MINI, size(1024, 1024), 'high')).toBe(25_501); // the measured vendor bill
    expect(imagePartTokens(GPT_4O_MINI, null, 'low')).toBe(2833);
  });

  it('patches: 32-px patches up to 1536, times the multiplier; detail does not lower it', () => {
    expect(imagePartTokens(GPT_41_MINI, size(1024, 1024), 'high')).toBe(Math.ceil(1024 * 1.62));
    expect(imagePartTokens(GPT_41_MINI, size(1800, 2400), 'low')).toBe(Math.ceil(1536 * 1.62));
    expect(imagePartTokens(GPT_41_MINI, null, 'low')).toBe(Math.ceil(1536 * 1.62));
  });

  it('pixels: width × height / 750 up to the cap; no rule: the generous default', () => {
    expect(imagePartTokens(CLAUDE, size(1000, 1000), 'high')).toBe(1334);
    expect(imagePartTokens(CLAUDE, size(4000, 4000), 'low')).toBe(1600);
    expect(imagePartTokens(CLAUDE, null, 'high')).toBe(1600);
    expect(imagePartTokens(undefined, size(10, 10), 'low')).toBe(DEFAULT_IMAGE_PART_TOKENS);
  });
});

describe('dataUriImageSize (header bytes only)', () => {
  it('reads PNG, JPEG, WebP (lossy and lossless) and GIF sizes; null for anything else', async () => {
    const image = sharp({ create: { width: 1000, height: 300, channels: 3, background: '#336699' } });
    const uri = (format: string, bytes: Buffer) => `data:image/${format};base64,${bytes.toString('base64')}`;
    for (const [format, bytes] of [
      ['png', await image.clone().png().toBuffer()],
      [
        'jpeg',
        await image
          .clone()
          .jpeg()
          .withMetadata({ exif: { IFD0: { Copyright: 'x'.repeat(3000) } } })
          .toBuffer(),
      ],
      ['webp', await image.clone().webp().toBuffer()],
      ['webp', await image.clone().webp({ lossless: true }).toBuffer()],
      ['gif', await image.clone().gif().toBuffer()],
    ] as const) {
      expect(dataUriImageSize(uri(format, bytes)), format).toEqual({ width: 1000, height: 300 });
    }
    expect(dataUriImageSize('https://example.com/a.png')).toBeNull();
    expect(dataUriImageSize('data:image/png;base64,AAAA')).toBeNull();
  });
});

describe('imagePartsOf and ImageHolds', () => {
  const entry: CatalogFileEntry = catalogRow({ slug: 'vision-model', media_kind: 'text', image_tokens: GPT_4O });
  const parts = (detail?: string) =>
    imagePartsOf([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'image_url', image_url: { url: 'https://example.com/a.png', ...(detail ? { detail } : {}) } },
        ],
      },
    ]);

  it('finds image parts with their detail (auto and absent read as high)', () => {
    expect(parts('low')).toEqual([{ detail: 'low', size: null }]);
    expect(parts('auto')).toEqual([{ detail: 'high', size: null }]);
    expect(parts()).toEqual([{ detail: 'high', size: null }]);
  });

  it('holds by the rule until an upstream reports more; then that model and detail are held at the reported size', () => {
    const holds = new ImageHolds();
    const low = holds.hold(entry, parts('low'));
    expect(low.tokens).toBe(85);
    holds.learn(entry.slug, low, 100 + low.tokens, 100 + low.tokens); // as held: nothing learned
    expect(holds.hold(entry, parts('low')).tokens).toBe(85);
    holds.learn(entry.slug, low, 100 + low.tokens, 100 + 900); // 900 reported for the image
    expect(holds.hold(entry, parts('low')).tokens).toBe(900);
    expect(holds.hold(entry, [...parts('low'), ...parts('low')]).tokens).toBe(1800);
    expect(holds.hold(entry, parts('high')).tokens).toBe(85 + 8 * 170); // another shape: its own rule
    expect(holds.hold({ ...entry, slug: 'other' }, parts('low')).tokens).toBe(85);
  });
});

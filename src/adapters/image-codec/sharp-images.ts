import { onFirstUse } from '../../lib/on-first-use.js';
import type { EncodedImage, OutputFormat } from './index.js';

/** sharp and libvips are loaded with the first image, not at start: a gateway serving text never maps them. */
const loadSharp = onFirstUse(async () => (await import('sharp')).default);

const MIME: Record<OutputFormat, string> = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' };

/**
 * A delivered image in the format asked for (sharp 0.35, research/media.md B1): one already in that format passes
 * through untouched; JPEG has its alpha flattened onto white, WebP keeps it. An image that cannot be re-encoded is
 * returned as PNG (SPEC 2.11: the caller still gets its image), or as it came when even that fails.
 */
export async function encodeImage(source: Buffer, sourceFormat: string, format: OutputFormat): Promise<EncodedImage> {
  if (sourceFormat === format) return { bytes: source, mimeType: MIME[format], format };
  const sharp = await loadSharp();
  try {
    const image = sharp(source);
    const bytes =
      format === 'jpeg'
        ? await image.flatten({ background: '#ffffff' }).jpeg({ quality: 90 }).toBuffer()
        : format === 'webp'
          ? await image.webp({ quality: 90 }).toBuffer()
          : await image.png().toBuffer();
    return { bytes, mimeType: MIME[format], format };
  } catch {
    return sourceFormat === 'png' || format === 'png'
      ? { bytes: source, mimeType: MIME.png, format: 'png' }
      : encodeImage(source, sourceFormat, 'png');
  }
}

const FORMAT_OF: Record<string, OutputFormat | 'gif' | 'avif' | 'tiff' | 'heif'> = {
  png: 'png',
  jpeg: 'jpeg',
  webp: 'webp',
  gif: 'gif',
  avif: 'avif',
  tiff: 'tiff',
  heif: 'heif',
};

/** A solid image of `width` × `height` in `format` (the sandbox's renders). */
export async function solidImage(
  width: number,
  height: number,
  rgba: { r: number; g: number; b: number; alpha: number },
  format: 'png' | 'jpeg' | 'tiff',
): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp({ create: { width, height, channels: 4, background: rgba } })
    .toFormat(format)
    .toBuffer();
}

/** What an image's bytes are, sniffed (a host's Content-Type is not trusted); null when they are not an image. */
export async function inspectImage(
  bytes: Buffer,
): Promise<{ format: string; mimeType: string; width: number; height: number } | null> {
  const sharp = await loadSharp();
  try {
    const meta = await sharp(bytes).metadata();
    const format = meta.format === undefined ? undefined : FORMAT_OF[meta.format];
    if (format === undefined || meta.width === undefined || meta.height === undefined) return null;
    return { format, mimeType: `image/${format}`, width: meta.width, height: meta.height };
  } catch {
    return null;
  }
}

/** The longest side of the thumbnail an image's colour is read from. */
const THUMBNAIL_EDGE = 64;

/**
 * The colour an image is mostly made of (the sandbox paints edits in their reference's colour), read from a
 * thumbnail: sharp shrinks JPEG and WebP while decoding and streams other formats through the resize in strips, so
 * the full-size frame is never held (a 16000² PNG read whole took 4 s and 250 MB). An image of more than
 * `maxPixels`, or one that fails to decode, rejects before any pixel is read.
 */
export async function dominantColour(bytes: Buffer, maxPixels: number): Promise<{ r: number; g: number; b: number }> {
  const sharp = await loadSharp();
  const thumbnail = await sharp(bytes, { limitInputPixels: maxPixels, failOn: 'error', sequentialRead: true })
    .resize(THUMBNAIL_EDGE, THUMBNAIL_EDGE, { fit: 'inside', withoutEnlargement: true })
    .png()
    .toBuffer();
  return (await sharp(thumbnail).stats()).dominant;
}

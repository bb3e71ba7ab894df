/** An image's size in pixels, as its own header states it. */
export interface PixelSize {
  width: number;
  height: number;
}

/**
 * Header bytes read from a data URI: a JPEG's size follows its metadata segments (EXIF, ICC profiles), which fit
 * in this much in practice; an image whose size is not found in it is held at its model's worst case.
 */
const HEADER_BASE64_CHARS = 64 * 1024;

/**
 * The size a `data:image/...;base64,` URI declares in its header (PNG, GIF, WebP, JPEG), from at most its first
 * 48 KB of bytes, without decoding the image (cheap enough for the request path); null when not found.
 */
export function dataUriImageSize(url: string): PixelSize | null {
  const comma = url.indexOf(',');
  if (!url.startsWith('data:') || comma < 0) return null;
  const start = comma + 1;
  const length = Math.min(url.length - start, HEADER_BASE64_CHARS) & ~3; // whole base64 quads only
  const bytes = Buffer.from(url.slice(start, start + length), 'base64');
  return pngSize(bytes) ?? gifSize(bytes) ?? webpSize(bytes) ?? jpegSize(bytes);
}

/**
 * Whether bytes start as a PNG, GIF, WebP or JPEG does, the types every vision upstream reads; by signature only,
 * since a JPEG's size may lie past the first bytes a probe reads.
 */
export function startsAsImage(b: Buffer): boolean {
  return (
    ascii(b, 1, 'PNG') ||
    ascii(b, 0, 'GIF8') ||
    (ascii(b, 0, 'RIFF') && ascii(b, 8, 'WEBP')) ||
    (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff)
  );
}

const ascii = (bytes: Buffer, at: number, text: string) =>
  bytes.length >= at + text.length && bytes.toString('latin1', at, at + text.length) === text;
const sized = (width: number, height: number): PixelSize | null => (width > 0 && height > 0 ? { width, height } : null);

/** PNG: the IHDR chunk comes first, width and height big-endian at bytes 16 and 20. */
function pngSize(b: Buffer): PixelSize | null {
  if (!ascii(b, 1, 'PNG') || !ascii(b, 12, 'IHDR') || b.length < 24) return null;
  return sized(b.readUInt32BE(16), b.readUInt32BE(20));
}

/** GIF: the logical screen size, little-endian at bytes 6 and 8. */
function gifSize(b: Buffer): PixelSize | null {
  if (!ascii(b, 0, 'GIF8') || b.length < 10) return null;
  return sized(b.readUInt16LE(6), b.readUInt16LE(8));
}

/** WebP: lossy (VP8), lossless (VP8L) or extended (VP8X) first chunk. */
function webpSize(b: Buffer): PixelSize | null {
  if (!ascii(b, 0, 'RIFF') || !ascii(b, 8, 'WEBP') || b.length < 30) return null;
  if (ascii(b, 12, 'VP8 ')) return sized(b.readUInt16LE(26) & 0x3fff, b.readUInt16LE(28) & 0x3fff);
  if (ascii(b, 12, 'VP8L')) {
    const bits = b.readUInt32LE(21);
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (ascii(b, 12, 'VP8X')) return sized(b.readUIntLE(24, 3) + 1, b.readUIntLE(27, 3) + 1);
  return null;
}

/** JPEG start-of-frame markers (baseline, progressive, lossless, arithmetic): not DHT (C4), JPG (C8) or DAC (CC). */
const SOF_MARKERS = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** JPEG: walks the segments to the first start-of-frame, which holds height then width, big-endian. */
function jpegSize(b: Buffer): PixelSize | null {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return null;
  let at = 2;
  while (at + 9 <= b.length) {
    if (b[at] !== 0xff) return null;
    const marker = b[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (SOF_MARKERS.has(marker)) return sized(b.readUInt16BE(at + 7), b.readUInt16BE(at + 5));
    at += 2 + b.readUInt16BE(at + 2);
  }
  return null;
}

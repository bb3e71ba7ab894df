import { type LoadedMedia, MediaLoadError } from './index.js';

const DATA_URI = /^data:([\w.+-]+\/[\w.+-]+)?((?:;[\w-]+=[^;,]*)*);base64,(.*)$/s;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** An http(s) URL, which the loader fetches; anything else is inline media. */
export function isRemote(reference: string): boolean {
  return /^https?:\/\//i.test(reference);
}

/**
 * A data URI (`data:<type>;base64,<bytes>`) or bare base64 (standard or URL-safe alphabet) as bytes, or
 * `undecodable` (SPEC 2.11). `maxBytes` is checked on the encoded length first, before anything is decoded.
 */
export function decodeInline(reference: string, maxBytes: number): LoadedMedia {
  const match = DATA_URI.exec(reference.trim());
  const declaredType = match ? (match[1] ?? null) : null;
  const encoded = (match ? (match[3] ?? '') : reference).replace(/\s+/g, '');
  if (encoded.length === 0 || !BASE64.test(encoded) || encoded.length % 4 === 1) {
    throw new MediaLoadError(
      'undecodable',
      'not an http(s) URL, a data URI or base64: send a link, data:<type>;base64,<bytes>, or the bytes in base64',
    );
  }
  if (Math.floor((encoded.length * 3) / 4) > maxBytes)
    throw new MediaLoadError('too_large', `larger than ${maxBytes} bytes`);
  return {
    bytes: Buffer.from(encoded, encoded.includes('-') || encoded.includes('_') ? 'base64url' : 'base64'),
    declaredType,
  };
}

/** The first `bytes` bytes of loaded media, for a probe. */
export function prefixOf(media: LoadedMedia, bytes: number): LoadedMedia {
  return media.bytes.length <= bytes ? media : { ...media, bytes: media.bytes.subarray(0, bytes) };
}

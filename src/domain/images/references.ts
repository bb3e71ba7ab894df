import type { BlobStore } from '../../adapters/blob-store/index.js';
import { inspectImage } from '../../adapters/image-codec/sharp-images.js';
import { MediaLoadError, type MediaLoader, type MediaLoadFailure } from '../../adapters/media-fetch/index.js';
import type { ImageCall } from '../../adapters/upstream/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { FileLinks } from '../media/file-links.js';

export interface ReferenceDeps {
  media: MediaLoader;
  blobs: BlobStore;
  fileLinks: FileLinks;
}

/** SPEC 2.11 / 7.4: what a client is told to do about a reference that could not be used. */
const HINTS: Record<MediaLoadFailure | 'not_an_image' | 'not_a_video', string> = {
  undecodable: 'send a link (https://…), a data URI (data:image/png;base64,…) or the bytes in base64',
  blocked_address: 'send a public, direct-download link or a data URI',
  too_large: 'send a smaller image',
  timeout: 'send a public, direct-download link that answers quickly, or a data URI',
  unreachable:
    'send a public, direct-download link (not a view page, a sign-in redirect or a private share), or a data URI',
  not_an_image: 'send a PNG, JPEG, WebP, GIF, AVIF, TIFF or HEIF image',
  not_a_video: 'send an MP4, MOV or WebM video',
};

/**
 * The most pixels a reference may have, read from its header before anything decodes it: a 50-megapixel photo
 * passes; larger ones only make upstreams (and the sandbox's thumbnails) decode more for the same edit.
 */
export const REFERENCE_MAX_PIXELS = 50_000_000;

/** A reference as dispatched, with the name it is hosted under (a job resumed after a restart reads it back). */
export type HostedReference = ImageCall['references'][number] & { name: string };

/**
 * The reference images of a request, loaded (SSRF-safely), sniffed (the type a host declared is not trusted) and
 * hosted by us before dispatch, so every upstream gets the same bytes and a link of ours (never the client's
 * data URI or link). One that cannot be used is 400 `upstream_validation_error` naming it, with a hint.
 */
export async function hostReferences(
  deps: ReferenceDeps,
  requestId: string,
  references: readonly string[],
  expiresAtMs: number,
): Promise<HostedReference[]> {
  return Promise.all(
    references.map(async (reference, i) => {
      const field = `input_images[${i}]`;
      const bytes = await loadInput(deps.media, field, reference);
      const image = await inspectImage(bytes);
      if (image === null) throw unusable(field, 'not an image', 'not_an_image');
      if (image.width * image.height > REFERENCE_MAX_PIXELS) {
        throw unusable(
          field,
          `${image.width}×${image.height} pixels; at most ${REFERENCE_MAX_PIXELS} are taken`,
          'too_large',
        );
      }
      const name = `${requestId}-ref-${i}.${image.format}`;
      await deps.blobs.put(name, bytes, { contentType: image.mimeType, expiresAtMs });
      return { name, bytes, mimeType: image.mimeType, url: deps.fileLinks.link(name, expiresAtMs) };
    }),
  );
}

/** The bytes of a media input (SSRF-safe); one that cannot be loaded is 400 `upstream_validation_error` naming it, with a hint. */
export async function loadInput(media: MediaLoader, field: string, reference: string): Promise<Buffer> {
  try {
    return (await media.load(reference)).bytes;
  } catch (err) {
    if (!(err instanceof MediaLoadError)) throw err;
    throw unusable(field, err.message, err.failure);
  }
}

/** An input that is not the media its field takes: 400 `upstream_validation_error` naming it, with a hint. */
export function unusable(field: string, reason: string, failure: keyof typeof HINTS): ApiError {
  return new ApiError('upstream_validation_error', `${field}: ${reason}`, { meta: { field, hint: HINTS[failure] } });
}

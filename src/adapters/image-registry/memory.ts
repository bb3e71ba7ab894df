import { type ManifestFacts, toImageSize, UNPACK_FACTOR } from './image-size.js';
import {
  type ImageRegistry,
  ImageRegistryError,
  type ImageRegistryErrorKind,
  type ImageSize,
  type ImageSizeOptions,
} from './index.js';
import { parseImageReference } from './reference.js';

/** What the twin knows of one reference: its manifest's facts, or the failure asking for it gives. */
export type MemoryImage = ManifestFacts | ImageRegistryErrorKind;

/**
 * The in-memory twin: references from a fixed map, parsed and normalised as the real adapter parses them, so
 * `ubuntu` finds an entry stored as `docker.io/library/ubuntu:latest`; an unknown reference is `not_found`. It
 * models one platform per reference: `options.platform` is not consulted (store `unsupported` to act out an image
 * without the caller's platform).
 */
export class MemoryImageRegistry implements ImageRegistry {
  readonly #images = new Map<string, MemoryImage>();

  constructor(
    images: Iterable<readonly [string, MemoryImage]> = [],
    private readonly unpackFactor = UNPACK_FACTOR,
  ) {
    for (const [reference, image] of images) this.#images.set(parseImageReference(reference).reference, image);
  }

  async imageSize(reference: string, options: ImageSizeOptions = {}): Promise<ImageSize> {
    const ref = parseImageReference(reference);
    options.signal?.throwIfAborted();
    const image = this.#images.get(ref.reference);
    if (image === undefined) throw new ImageRegistryError('not_found', `${ref.reference}: no such image`);
    if (typeof image === 'string') throw new ImageRegistryError(image, `${ref.reference}: ${image}`);
    return toImageSize(ref, image, this.unpackFactor);
  }

  async close(): Promise<void> {}
}

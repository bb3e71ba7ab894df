import type { ImageSize } from './index.js';
import type { ImageReference } from './reference.js';

/**
 * Unpacked size ÷ compressed size, assumed. Registries know only the compressed (gzip or zstd) layer blobs; what
 * a layer takes once unpacked is in no manifest and would need every layer downloaded. Container userlands and
 * Python/CUDA stacks unpack to about 2-3× (ubuntu:24.04: about 29 MB compressed, 78 MB unpacked), so 2.5 is a
 * middle estimate, not a bound. It counts the unpacked layers only: a host on containerd's image store also keeps
 * the compressed blobs (one more ×1), which a caller can allow for with the adapter's `unpackFactor` option.
 */
export const UNPACK_FACTOR = 2.5;

/** What a registry tells about one platform's image manifest. */
export interface ManifestFacts {
  digest: string;
  compressedBytes: number;
  layers: number;
}

/** The port's answer, built the same way by the real adapter and its twin. */
export function toImageSize(ref: ImageReference, facts: ManifestFacts, unpackFactor = UNPACK_FACTOR): ImageSize {
  return {
    reference: ref.reference,
    registry: ref.registry,
    repository: ref.repository,
    tag: ref.tag,
    digest: facts.digest,
    compressedBytes: facts.compressedBytes,
    layers: facts.layers,
    estimatedDiskBytes: Math.ceil(facts.compressedBytes * unpackFactor),
  };
}

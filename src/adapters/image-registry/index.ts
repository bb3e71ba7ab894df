/**
 * The image-registry port (SPEC 2.10, "Docker image size check"): how big a Docker image is, read from its own
 * registry through the OCI distribution API, so a burst order can compare it with `disk_gb` before anything is
 * rented. The real adapter (oci-registry.ts) speaks HTTP to the registry the reference names; the in-memory twin
 * (memory.ts) answers from a fixed map, so callers can be tested without sockets. Both parse references the
 * same way (reference.ts, Docker's own grammar) and build the answer the same way (image-size.ts).
 */

export interface ImagePlatform {
  os: string;
  architecture: string;
}

export interface ImageSizeOptions {
  /** Which entry of a multi-platform image (an OCI index or Docker manifest list) counts. Default linux/amd64. */
  platform?: ImagePlatform;
  /** The caller went away: the check stops and rejects with the signal's reason, not with an ImageRegistryError. */
  signal?: AbortSignal;
}

export interface ImageSize {
  /** Normalised as Docker does: `docker.io/library/ubuntu:24.04`, `ghcr.io/o/app@sha256:…`. */
  reference: string;
  /** The registry as named in the reference (`docker.io`, `localhost:5000`), not the API host it is reached on. */
  registry: string;
  /** The repository path (`library/ubuntu`). */
  repository: string;
  /** The tag, or null when the reference names a digest only. */
  tag: string | null;
  /** The digest of the image manifest that was sized: for a multi-platform image, the chosen platform's one. */
  digest: string;
  /** Config blob plus every layer, as the registry stores them (compressed). */
  compressedBytes: number;
  layers: number;
  /**
   * What the image is expected to take on disk once pulled and unpacked: registries report compressed sizes only
   * (the unpacked size is in no manifest), so this is `compressedBytes` × UNPACK_FACTOR (image-size.ts), an estimate.
   */
  estimatedDiskBytes: number;
}

/** Why an image could not be sized. */
export type ImageRegistryErrorKind =
  /** Not a valid Docker image reference; nothing was sent anywhere. */
  | 'invalid_reference'
  /** The registry does not know the repository or the tag (404, MANIFEST_UNKNOWN, NAME_UNKNOWN). */
  | 'not_found'
  /**
   * The registry refused access after the anonymous token dance: a private image (credentials are out of scope).
   * Docker Hub answers this, not 404, for a repository that does not exist, so the two cannot be told apart there.
   */
  | 'unauthorized'
  /** Network error, timeout, 5xx or 429, or an answer that breaks the protocol (a digest that does not match). */
  | 'unreachable'
  /**
   * The registry's address is one the service does not connect to (loopback, private, link-local such as cloud
   * metadata), unless allow-listed: the reference is user input, so its host is judged as media links are.
   */
  | 'blocked_address'
  /**
   * No manifest for the platform, a media type that is not a container image (schema 1, an OCI artifact), or a
   * manifest this service cannot read (not JSON, fields missing, over the size cap, indexes nested too deep).
   */
  | 'unsupported';

export class ImageRegistryError extends Error {
  constructor(
    readonly kind: ImageRegistryErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'ImageRegistryError';
  }
}

export interface ImageRegistry {
  /** The size of the image `reference` names; every failure about the image is an ImageRegistryError. */
  imageSize(reference: string, options?: ImageSizeOptions): Promise<ImageSize>;
  /** Releases pooled connections. */
  close(): Promise<void>;
}

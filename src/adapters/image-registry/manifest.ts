/**
 * Reading what a registry serves at /v2/<name>/manifests/<reference> (OCI image spec, Docker image manifest v2
 * schema 2): an index of platform manifests, or one image manifest whose blobs are sized. Pure: the bytes in,
 * the facts out; anything this service cannot read as a container image is `unsupported`.
 */
import { isRecord } from '../../lib/is-record.js';
import { type ImagePlatform, ImageRegistryError } from './index.js';
import { digestProblem } from './reference.js';

const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
const INDEX_TYPES: ReadonlySet<string> = new Set([OCI_INDEX, DOCKER_MANIFEST_LIST]);
const MANIFEST_TYPES: ReadonlySet<string> = new Set([OCI_MANIFEST, DOCKER_MANIFEST]);
/** A manifest whose config is anything else is an OCI artifact (a Helm chart, a signature), not a runnable image. */
const IMAGE_CONFIG_TYPES: ReadonlySet<string> = new Set([
  'application/vnd.oci.image.config.v1+json',
  'application/vnd.docker.container.image.v1+json',
]);

/** What we can read, most specific last; a registry picks among these (schema 1 is not offered: it is retired). */
export const MANIFEST_ACCEPT = [OCI_INDEX, DOCKER_MANIFEST_LIST, OCI_MANIFEST, DOCKER_MANIFEST].join(', ');

export const DEFAULT_PLATFORM: ImagePlatform = { os: 'linux', architecture: 'amd64' };

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: ImagePlatform;
}

export type Manifest =
  | { kind: 'index'; manifests: Descriptor[] }
  | { kind: 'image'; config: Descriptor; layers: Descriptor[] };

/**
 * The manifest in `body`. Its type is the body's own `mediaType` (part of the digested bytes) or else the
 * Content-Type the registry sent, as OCI lets the field be omitted.
 */
export function parseManifest(body: Buffer, contentType: string | undefined): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    throw unsupported('the registry answered a manifest that is not JSON');
  }
  if (!isRecord(json)) throw unsupported('the registry answered a manifest that is not a JSON object');
  const mediaType = typeof json.mediaType === 'string' ? json.mediaType : (contentType?.split(';')[0]?.trim() ?? '');
  if (INDEX_TYPES.has(mediaType)) {
    if (!Array.isArray(json.manifests)) throw unsupported('the image index has no manifests');
    return { kind: 'index', manifests: json.manifests.map(descriptor) };
  }
  if (!MANIFEST_TYPES.has(mediaType))
    throw unsupported(`the manifest type ${JSON.stringify(mediaType)} is not a container image this service reads`);
  if (!Array.isArray(json.layers)) throw unsupported('the image manifest has no layers');
  const config = descriptor(json.config);
  if (!IMAGE_CONFIG_TYPES.has(config.mediaType))
    throw unsupported(`an artifact (config ${config.mediaType}), not a container image`);
  return { kind: 'image', config, layers: json.layers.map(descriptor) };
}

/**
 * The index entry for `platform`: the first whose os and architecture match, in the index's order, as Docker picks
 * when no variant is asked for. Attestations (platform unknown/unknown) and entries of other types never match.
 */
export function pickPlatform(manifests: readonly Descriptor[], platform: ImagePlatform): Descriptor {
  const readable = manifests.filter((m) => MANIFEST_TYPES.has(m.mediaType) || INDEX_TYPES.has(m.mediaType));
  const found = readable.find(
    (m) => m.platform?.os === platform.os && m.platform.architecture === platform.architecture,
  );
  if (found !== undefined) return found;
  const offered = new Set(
    readable.flatMap((m) =>
      m.platform === undefined || m.platform.os === 'unknown' ? [] : [`${m.platform.os}/${m.platform.architecture}`],
    ),
  );
  const asked = `${platform.os}/${platform.architecture}`;
  throw unsupported(
    offered.size === 0
      ? `no manifest for ${asked}`
      : `no manifest for ${asked} (the image offers ${[...offered].join(', ')})`,
  );
}

/** The blobs a pull downloads: the config and every layer, as stored (compressed). */
export function blobBytes(manifest: Extract<Manifest, { kind: 'image' }>): { compressedBytes: number; layers: number } {
  const compressedBytes = manifest.layers.reduce((sum, layer) => sum + layer.size, manifest.config.size);
  return { compressedBytes, layers: manifest.layers.length };
}

function descriptor(value: unknown): Descriptor {
  if (!isRecord(value)) throw unsupported('a manifest descriptor is not a JSON object');
  const { mediaType, digest, size, platform } = value;
  if (typeof mediaType !== 'string' || typeof digest !== 'string')
    throw unsupported('a manifest descriptor lacks its mediaType or digest');
  const problem = digestProblem(digest);
  if (problem !== null) throw unsupported(`a manifest descriptor names a malformed digest: ${problem}`);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
    throw unsupported(`the descriptor ${digest} has no valid size`);
  const out: Descriptor = { mediaType, digest, size };
  if (isRecord(platform) && typeof platform.os === 'string' && typeof platform.architecture === 'string') {
    out.platform = { os: platform.os, architecture: platform.architecture };
  }
  return out;
}

function unsupported(message: string): ImageRegistryError {
  return new ImageRegistryError('unsupported', message);
}

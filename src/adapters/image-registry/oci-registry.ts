/**
 * The image-registry port over the OCI distribution API: GET /v2/<name>/manifests/<tag|digest>, accepting image
 * indexes and manifests in OCI and Docker formats; an index is resolved to the asked platform's manifest by digest,
 * whose config and layer sizes are summed. Anonymous Bearer tokens are fetched when a registry asks for one (Docker
 * Hub, GHCR); credentials are out of scope. Every connection goes through the address policy (src/lib/ssrf-guard.ts),
 * the whole check has one deadline, and manifests are read up to a size cap.
 */
import ipaddr from 'ipaddr.js';
import type { Agent } from 'undici';
import { AddressPolicy } from '../../lib/address-policy.js';
import { guardedAgent } from '../../lib/ssrf-guard.js';
import { toImageSize, UNPACK_FACTOR } from './image-size.js';
import { type ImageRegistry, ImageRegistryError, type ImageSize, type ImageSizeOptions } from './index.js';
import { blobBytes, DEFAULT_PLATFORM, pickPlatform } from './manifest.js';
import { type ImageReference, parseImageReference } from './reference.js';
import type { CheckCall } from './registry-get.js';
import { RegistrySession } from './registry-session.js';

export interface OciImageRegistryOptions {
  /**
   * Which addresses registries and token realms may be on. Default: public addresses only, as for media links
   * (the reference is user input); allow-list a private registry's, or the tests' loopback, here.
   */
  policy?: AddressPolicy;
  /**
   * Registries spoken to over plain http, as Docker's `insecure-registries`: `host` or `host:port`, as the
   * reference names it. Loopback and `localhost` registries always are; every other one is https.
   */
  insecureRegistries?: readonly string[];
  /** The whole check, token and index included. Default 10 s. */
  timeoutMs?: number;
  /** The largest manifest read. Default 4 MiB, the size the OCI distribution spec has registries accept. */
  maxManifestBytes?: number;
  /** Unpacked ÷ compressed, for `estimatedDiskBytes`. Default UNPACK_FACTOR (image-size.ts says why). */
  unpackFactor?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** An index may name another index (OCI allows it); more than this many levels is a loop or abuse. */
const MAX_INDEX_DEPTH = 2;

export class OciImageRegistry implements ImageRegistry {
  readonly #agent: Agent;
  readonly #policy: AddressPolicy;
  readonly #insecure: ReadonlySet<string>;
  readonly #timeoutMs: number;
  readonly #maxManifestBytes: number;
  readonly #unpackFactor: number;

  constructor(options: OciImageRegistryOptions = {}) {
    this.#policy = options.policy ?? AddressPolicy.parse('');
    this.#insecure = new Set(options.insecureRegistries ?? []);
    this.#timeoutMs = positive('timeoutMs', options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    this.#maxManifestBytes = positive('maxManifestBytes', options.maxManifestBytes ?? DEFAULT_MAX_MANIFEST_BYTES);
    this.#unpackFactor = positive('unpackFactor', options.unpackFactor ?? UNPACK_FACTOR);
    this.#agent = guardedAgent(this.#policy, this.#timeoutMs);
  }

  async imageSize(reference: string, options: ImageSizeOptions = {}): Promise<ImageSize> {
    const ref = parseImageReference(reference);
    const callerSignal = options.signal;
    callerSignal?.throwIfAborted();
    const deadline = AbortSignal.timeout(this.#timeoutMs);
    const call: CheckCall = {
      dispatcher: this.#agent,
      policy: this.#policy,
      signal: callerSignal === undefined ? deadline : AbortSignal.any([callerSignal, deadline]),
      callerSignal,
      timeoutMs: this.#timeoutMs,
    };
    const session = new RegistrySession(call, registryBaseUrl(ref, this.#insecure), ref, this.#maxManifestBytes);
    const platform = options.platform ?? DEFAULT_PLATFORM;
    // docker pull fetches by digest when the reference has one, whatever its tag says.
    let fetched = await session.manifest(ref.digest ?? ref.tag ?? 'latest', ref.digest);
    for (let depth = 0; fetched.manifest.kind === 'index'; depth++) {
      if (depth === MAX_INDEX_DEPTH)
        throw new ImageRegistryError('unsupported', `image indexes nested more than ${MAX_INDEX_DEPTH} deep`);
      const entry = pickPlatform(fetched.manifest.manifests, platform);
      fetched = await session.manifest(entry.digest, entry.digest);
    }
    return toImageSize(ref, { digest: fetched.digest, ...blobBytes(fetched.manifest) }, this.#unpackFactor);
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

/** `https://<api host>/v2/`, or http for loopback, `localhost` and the insecure registries (see the option). */
export function registryBaseUrl(ref: ImageReference, insecureRegistries: ReadonlySet<string>): URL {
  const hostname = new URL(`http://${ref.apiHost}`).hostname;
  const plain =
    hostname === 'localhost' ||
    isLoopback(hostname) ||
    insecureRegistries.has(ref.registry) ||
    insecureRegistries.has(hostname);
  return new URL(`${plain ? 'http' : 'https'}://${ref.apiHost}/v2/`);
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) && ipaddr.process(host).range() === 'loopback';
}

/** Options are checked at construction (DESIGN 7, Medusa style): a bad one fails at boot, not on a request. */
function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`OciImageRegistry: ${name} must be a positive number, got ${value}`);
  return value;
}

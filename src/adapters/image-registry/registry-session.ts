/**
 * One size check's conversation with one registry: manifests fetched by tag or digest, the anonymous token dance
 * on the first 401 (the token then reused for the rest of the check), digests verified, and every status mapped
 * to the port's errors (distribution spec, "Error codes").
 */
import { createHash } from 'node:crypto';
import { isRecord } from '../../lib/is-record.js';
import { type BearerChallenge, bearerChallenge } from './auth-challenge.js';
import { ImageRegistryError, type ImageRegistryErrorKind } from './index.js';
import { MANIFEST_ACCEPT, type Manifest, parseManifest } from './manifest.js';
import type { ImageReference } from './reference.js';
import { type CheckCall, type RegistryAnswer, registryGet } from './registry-get.js';

/** Token answers are a few kilobytes (a JWT); anything near this is not one. */
const TOKEN_MAX_BYTES = 256 * 1024;
const USER_AGENT = 'compute-gateway (image size check)';

export interface FetchedManifest {
  manifest: Manifest;
  /** The digest of the bytes served, in the algorithm asked for (sha256 for a tag). */
  digest: string;
}

export class RegistrySession {
  #token: string | null = null;

  constructor(
    private readonly call: CheckCall,
    /** `http(s)://host[:port]/v2/`. */
    private readonly base: URL,
    private readonly ref: ImageReference,
    private readonly maxManifestBytes: number,
  ) {}

  /** The manifest at a tag or digest; fetched by `digest`, the bytes must hash to it. */
  async manifest(tagOrDigest: string, digest: string | null): Promise<FetchedManifest> {
    const url = new URL(`${this.ref.repository}/manifests/${tagOrDigest}`, this.base);
    const answer = await this.#authorisedGet(url);
    if (answer.status < 200 || answer.status >= 300) throw statusError(answer, this.ref, tagOrDigest);
    if (answer.body === null) {
      throw new ImageRegistryError(
        'unsupported',
        `the manifest of ${this.ref.reference} is larger than ${this.maxManifestBytes} bytes`,
      );
    }
    const algorithm = digest === null ? 'sha256' : digest.slice(0, digest.indexOf(':'));
    const served = `${algorithm}:${createHash(algorithm).update(answer.body).digest('hex')}`;
    if (digest !== null && served !== digest) {
      throw new ImageRegistryError(
        'unreachable',
        `${this.ref.registry} served bytes that do not match ${digest} (got ${served})`,
      );
    }
    return { manifest: parseManifest(answer.body, header(answer.headers['content-type'])), digest: served };
  }

  /** A GET with the token if we hold one; on a Bearer 401 without one, the token dance and one retry. */
  async #authorisedGet(url: URL): Promise<RegistryAnswer> {
    const get = () => registryGet(this.call, url, this.#headers(), this.maxManifestBytes);
    const answer = await get();
    if (answer.status !== 401 || this.#token !== null) return answer;
    const challenge = bearerChallenge(answer.headers['www-authenticate']);
    if (challenge === null) return answer; // Basic auth or none offered: credentials, out of scope.
    this.#token = await this.#fetchToken(challenge);
    return get();
  }

  #headers(): Record<string, string> {
    const headers: Record<string, string> = { accept: MANIFEST_ACCEPT, 'user-agent': USER_AGENT };
    if (this.#token !== null) headers.authorization = `Bearer ${this.#token}`;
    return headers;
  }

  /** An anonymous pull token from the realm; the registry's own scope if it named one, else pull on this repository. */
  async #fetchToken(challenge: BearerChallenge): Promise<string> {
    if (!URL.canParse(challenge.realm) || !/^https?:$/.test(new URL(challenge.realm).protocol)) {
      throw new ImageRegistryError(
        'unreachable',
        `${this.ref.registry} named a token realm that is not an http(s) URL`,
      );
    }
    const realm = new URL(challenge.realm);
    if (challenge.service !== undefined) realm.searchParams.set('service', challenge.service);
    realm.searchParams.set('scope', challenge.scope ?? `repository:${this.ref.repository}:pull`);
    const answer = await registryGet(
      this.call,
      realm,
      { accept: 'application/json', 'user-agent': USER_AGENT },
      TOKEN_MAX_BYTES,
    );
    if (answer.status === 401 || answer.status === 403) {
      throw new ImageRegistryError(
        'unauthorized',
        `${realm.host} refused an anonymous token for ${this.ref.repository}`,
      );
    }
    if (answer.status < 200 || answer.status >= 300 || answer.body === null) {
      throw new ImageRegistryError('unreachable', `${realm.host} answered ${answer.status} for a token`);
    }
    const token = tokenOf(answer.body);
    if (token === null)
      throw new ImageRegistryError('unreachable', `${realm.host} answered a token response without a token`);
    return token;
  }
}

/** Docker Hub sends `token`, OAuth-style realms `access_token`; the spec says to accept either. */
function tokenOf(body: Buffer): string | null {
  try {
    const json: unknown = JSON.parse(body.toString('utf8'));
    if (!isRecord(json)) return null;
    const token = typeof json.token === 'string' && json.token !== '' ? json.token : json.access_token;
    return typeof token === 'string' && token !== '' ? token : null;
  } catch {
    return null;
  }
}

/** A non-2xx manifest answer as the port's error, with the registry's own error code when it sent one. */
function statusError(answer: RegistryAnswer, ref: ImageReference, tagOrDigest: string): ImageRegistryError {
  const { status } = answer;
  const said = registryErrorOf(answer.body);
  const name = `${ref.repository}${tagOrDigest.includes(':') ? '@' : ':'}${tagOrDigest}`;
  const because = said === null ? `HTTP ${status}` : `${said.code}: ${said.message}`;
  const fail = (kind: ImageRegistryErrorKind, what: string) =>
    new ImageRegistryError(kind, `${ref.registry} ${what} (${because})`);
  if (status === 404) return fail('not_found', `has no ${name}`);
  if (status === 401 || status === 403) return fail('unauthorized', `refused anonymous access to ${ref.repository}`);
  if (status === 400 && (said?.code === 'NAME_INVALID' || said?.code === 'TAG_INVALID'))
    return fail('invalid_reference', 'refused the name');
  // 406: the registry holds the manifest only in a format we did not accept (schema 1, say).
  if (status === 406 || status === 415) return fail('unsupported', 'has no manifest of a type this service reads');
  // 429 (Docker Hub's pull limit) and 5xx may pass; a 3xx for a manifest is not followed, as no registry sends one.
  return fail('unreachable', `answered ${status} for ${name}`);
}

/** The first `{code, message}` of the registry's error body `{"errors": [...]}`, if it sent one. */
function registryErrorOf(body: Buffer | null): { code: string; message: string } | null {
  if (body === null || body.length === 0) return null;
  try {
    const json: unknown = JSON.parse(body.toString('utf8'));
    const first: unknown = isRecord(json) && Array.isArray(json.errors) ? json.errors[0] : undefined;
    if (!isRecord(first) || typeof first.code !== 'string') return null;
    return { code: first.code, message: typeof first.message === 'string' ? first.message : '' };
  } catch {
    return null;
  }
}

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

import { type Agent, request } from 'undici';
import type { AddressPolicy } from '../../lib/address-policy.js';
import { assertPermittedHost, guardedAgent, isBlocked } from '../../lib/ssrf-guard.js';
import { type LoadedMedia, MediaLoadError, type MediaLoader } from './index.js';
import { decodeInline, isRemote, prefixOf } from './inline-media.js';

export interface SafeMediaLoaderOptions {
  policy: AddressPolicy;
  /** Larger media is refused while it streams in (and before, when Content-Length says so). */
  maxBytes: number;
  /** The whole load, redirects included. */
  timeoutMs: number;
  maxRedirects: number;
}

const CONNECT_TIMEOUT_MS = 10_000;

type Body = AsyncIterable<Buffer> & { destroy(): void };
/** Reads a 2xx body: all of it within the cap (load), or its first bytes (probe). */
type BodyReader = (body: Body, declaredLength: number) => Promise<Buffer>;

/** The first `limit` bytes of a body; the rest is never read (the connection is dropped). */
async function readPrefix(body: Body, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  body.destroy();
  return Buffer.concat(chunks).subarray(0, limit);
}

/**
 * Loads media references safely (research/media.md B6). Three checks, so no request reaches an internal address:
 * an IP literal in the URL is judged before connecting; a name resolves only to addresses the policy permits
 * (no connection is even tried to the others); and the address actually connected to is judged again (a name
 * that resolves differently the second time). Every redirect hop goes through the same checks, only http(s) is
 * followed, nothing but the URL is sent, and size and time are capped.
 */
export class SafeMediaLoader implements MediaLoader {
  readonly #agent: Agent;

  constructor(private readonly options: SafeMediaLoaderOptions) {
    this.#agent = guardedAgent(options.policy, CONNECT_TIMEOUT_MS);
  }

  async load(reference: string): Promise<LoadedMedia> {
    if (!isRemote(reference)) return decodeInline(reference, this.options.maxBytes);
    return this.#get(reference, (body, declaredLength) => this.#read(body, declaredLength));
  }

  async probe(reference: string, bytes: number): Promise<LoadedMedia> {
    if (!isRemote(reference)) return prefixOf(decodeInline(reference, this.options.maxBytes), bytes);
    return this.#get(reference, (body) => readPrefix(body, bytes));
  }

  async #get(reference: string, read: BodyReader): Promise<LoadedMedia> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      return await this.#fetch(new URL(reference), signal, read);
    } catch (err) {
      throw asLoadError(err, signal);
    }
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }

  async #fetch(first: URL, signal: AbortSignal, read: BodyReader): Promise<LoadedMedia> {
    let url = first;
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new MediaLoadError('unreachable', `${url.protocol} links are not followed`);
      assertPermittedHost(url, this.options.policy);
      const response = await request(url, {
        dispatcher: this.#agent,
        method: 'GET',
        signal,
        headers: { accept: '*/*' },
      });
      const location = response.headers.location;
      if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string') {
        await response.body.dump();
        if (hop >= this.options.maxRedirects)
          throw new MediaLoadError('unreachable', `more than ${this.options.maxRedirects} redirects`);
        url = new URL(location, url);
        continue;
      }
      if (response.statusCode < 200 || response.statusCode >= 300) {
        await response.body.dump();
        throw new MediaLoadError('unreachable', `${url.host} answered ${response.statusCode}`);
      }
      const type = response.headers['content-type'];
      return {
        bytes: await read(response.body, Number(response.headers['content-length'] ?? 0)),
        declaredType: typeof type === 'string' ? type : null,
      };
    }
  }

  async #read(body: Body, declaredLength: number): Promise<Buffer> {
    const { maxBytes } = this.options;
    if (declaredLength > maxBytes) {
      body.destroy();
      throw new MediaLoadError('too_large', `larger than ${maxBytes} bytes`);
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.length;
      if (size > maxBytes) {
        body.destroy();
        throw new MediaLoadError('too_large', `larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }
}

/** Whatever a load threw, as the failure it stands for. */
function asLoadError(err: unknown, signal: AbortSignal): MediaLoadError {
  if (err instanceof MediaLoadError) return err;
  if (isBlocked(err))
    return new MediaLoadError('blocked_address', 'the link points at an address media is not fetched from');
  if (signal.aborted) return new MediaLoadError('timeout', 'the link did not answer in time');
  return new MediaLoadError(
    'unreachable',
    `the link could not be fetched: ${err instanceof Error ? err.message : String(err)}`,
  );
}

import { type LoadedMedia, MediaLoadError, type MediaLoader } from './index.js';
import { decodeInline, isRemote, prefixOf } from './inline-media.js';

/** The in-memory twin: URLs from a fixed map (anything else is unreachable), inline media decoded as the real loader does. */
export class MemoryMediaLoader implements MediaLoader {
  constructor(
    private readonly byUrl: ReadonlyMap<string, LoadedMedia>,
    private readonly maxBytes: number,
  ) {}

  async load(reference: string): Promise<LoadedMedia> {
    if (!isRemote(reference)) return decodeInline(reference, this.maxBytes);
    const found = this.byUrl.get(reference);
    if (found === undefined) throw new MediaLoadError('unreachable', `${reference}: nothing there`);
    if (found.bytes.length > this.maxBytes)
      throw new MediaLoadError('too_large', `${reference}: larger than ${this.maxBytes} bytes`);
    return found;
  }

  async probe(reference: string, bytes: number): Promise<LoadedMedia> {
    if (!isRemote(reference)) return prefixOf(decodeInline(reference, this.maxBytes), bytes);
    const found = this.byUrl.get(reference);
    if (found === undefined) throw new MediaLoadError('unreachable', `${reference}: nothing there`);
    return prefixOf(found, bytes);
  }

  async close(): Promise<void> {}
}

/**
 * The media-reference port (SPEC 2.11 `input_images`, 2.12 `image_url` / `video_url` / references): what a client
 * names as media — an http(s) URL, a data URI or bare base64 — loaded as bytes before anything is dispatched.
 * The real loader fetches URLs SSRF-safely (src/lib/ssrf-guard.ts); the in-memory twin serves a fixed map, so the
 * domain can be tested without sockets. Both decode inline media the same way (inline-media.ts).
 */
export interface LoadedMedia {
  bytes: Buffer;
  /** The type the source declared (a data URI's, or the Content-Type header); sniff the bytes before trusting it. */
  declaredType: string | null;
}

/** Why a reference could not be loaded: each maps to the client's error (SPEC 7.4 "unfetchable reference"). */
export type MediaLoadFailure =
  /** Neither an http(s) URL nor decodable base64 (SPEC 2.11: a hint says which forms are taken). */
  | 'undecodable'
  /** The address is loopback, private, link-local or metadata, and not allow-listed. */
  | 'blocked_address'
  | 'too_large'
  | 'timeout'
  /** The source answered with a non-2xx status, too many redirects, or not at all. */
  | 'unreachable';

export class MediaLoadError extends Error {
  constructor(
    readonly failure: MediaLoadFailure,
    message: string,
  ) {
    super(message);
    this.name = 'MediaLoadError';
  }
}

export interface MediaLoader {
  load(reference: string): Promise<LoadedMedia>;
  /**
   * At most the first `bytes` bytes of what `reference` names, under the same rules as `load` except the size cap:
   * enough to tell what a link serves without downloading all of it (issue 24 item 6).
   */
  probe(reference: string, bytes: number): Promise<LoadedMedia>;
  close(): Promise<void>;
}

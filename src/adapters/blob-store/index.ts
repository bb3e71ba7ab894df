/**
 * The blob-store port: files the gateway hosts (issue 9 "Files we host": rendered images, video, audio, re-hosted
 * references), each kept until its own expiry (SPEC 3.1, 8: images 15 min, video 2 h, others 60 min). The
 * filesystem on the embedded default, any S3-compatible store at scale, and an in-memory twin; one conformance
 * suite (test/adapters/blob-store.conformance.ts) holds all three to the same behaviour.
 */
export interface BlobMeta {
  contentType: string;
  /** After this instant the blob is gone for readers and the sweep deletes it. */
  expiresAtMs: number;
}

export interface StoredBlob {
  bytes: Buffer;
  meta: BlobMeta;
}

export interface BlobStore {
  /** Stores `bytes` under `key` (a later put replaces them). */
  put(key: string, bytes: Buffer, meta: BlobMeta): Promise<void>;
  /** The blob, or null when there is none or it expired at `nowMs`. */
  get(key: string, nowMs: number): Promise<StoredBlob | null>;
  delete(key: string): Promise<void>;
  /** Deletes every blob expired at `nowMs`; resolves with how many. */
  sweep(nowMs: number): Promise<number>;
  close(): Promise<void>;
}

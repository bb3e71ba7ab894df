import { checkBlobKey } from './blob-key.js';
import type { BlobMeta, BlobStore, StoredBlob } from './index.js';

/** The in-memory twin. */
export class MemoryBlobStore implements BlobStore {
  readonly #blobs = new Map<string, StoredBlob>();

  async put(key: string, bytes: Buffer, meta: BlobMeta): Promise<void> {
    this.#blobs.set(checkBlobKey(key), { bytes: Buffer.from(bytes), meta: { ...meta } });
  }

  async get(key: string, nowMs: number): Promise<StoredBlob | null> {
    const blob = this.#blobs.get(checkBlobKey(key));
    return blob === undefined || blob.meta.expiresAtMs <= nowMs ? null : blob;
  }

  async delete(key: string): Promise<void> {
    this.#blobs.delete(checkBlobKey(key));
  }

  async sweep(nowMs: number): Promise<number> {
    let swept = 0;
    for (const [key, blob] of this.#blobs) {
      if (blob.meta.expiresAtMs > nowMs) continue;
      this.#blobs.delete(key);
      swept++;
    }
    return swept;
  }

  async close(): Promise<void> {}
}

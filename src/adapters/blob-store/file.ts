import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, sep } from 'node:path';
import { checkBlobKey } from './blob-key.js';
import type { BlobMeta, BlobStore, StoredBlob } from './index.js';

const META_SUFFIX = '.meta.json';

/**
 * Blobs as files under one directory (the embedded default): `<key>` holds the bytes, `<key>.meta.json` the type
 * and expiry. Both are written to a temporary name and renamed, so a reader never sees half a file; the metadata
 * goes last, so a blob without it does not exist yet.
 */
export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  async put(key: string, bytes: Buffer, meta: BlobMeta): Promise<void> {
    const path = this.#path(key);
    await mkdir(dirname(path), { recursive: true });
    await writeAtomically(path, bytes);
    await writeAtomically(path + META_SUFFIX, JSON.stringify(meta));
  }

  async get(key: string, nowMs: number): Promise<StoredBlob | null> {
    const path = this.#path(key);
    const meta = await readMeta(path + META_SUFFIX);
    if (meta === null || meta.expiresAtMs <= nowMs) return null;
    try {
      return { bytes: await readFile(path), meta };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null; // swept meanwhile
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    const path = this.#path(key);
    await rm(path + META_SUFFIX, { force: true });
    await rm(path, { force: true });
  }

  async sweep(nowMs: number): Promise<number> {
    let swept = 0;
    let entries: string[];
    try {
      entries = await readdir(this.root, { recursive: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
    for (const entry of entries) {
      if (!entry.endsWith(META_SUFFIX)) continue;
      const meta = await readMeta(join(this.root, entry));
      if (meta === null || meta.expiresAtMs > nowMs) continue;
      await this.delete(entry.slice(0, -META_SUFFIX.length).split(sep).join('/'));
      swept++;
    }
    return swept;
  }

  async close(): Promise<void> {}

  #path(key: string): string {
    return join(this.root, checkBlobKey(key));
  }
}

async function writeAtomically(path: string, data: Buffer | string): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  await writeFile(temporary, data);
  await rename(temporary, path);
}

async function readMeta(path: string): Promise<BlobMeta | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as BlobMeta;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/**
 * The one behavioural contract of the blob-store port (src/adapters/blob-store/index.ts), run against every
 * implementation so the in-memory twin stays honest. Time is the caller's (`nowMs`), so expiry is exact.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlobStore } from '../../src/adapters/blob-store/index.js';

export interface BlobStoreUnderTest {
  store: BlobStore;
  cleanup(): Promise<void>;
}

const T0 = 1_750_000_000_000;
const MINUTE = 60_000;
/** A fresh key space per test, so tests never see each other's blobs. */
const space = () => `jobs/job_${randomBytes(6).toString('hex')}`;

export function blobStoreConformance(name: string, make: () => Promise<BlobStoreUnderTest>): void {
  describe(`blob store: ${name}`, () => {
    const made = make();
    afterAll(async () => {
      const { store, cleanup } = await made;
      await store.close();
      await cleanup();
    });

    it('put then get: the same bytes, type and expiry; a later put replaces them', async () => {
      const { store } = await made;
      const key = `${space()}/0.png`;
      const bytes = randomBytes(70_000);
      await store.put(key, bytes, { contentType: 'image/png', expiresAtMs: T0 + 15 * MINUTE });
      const got = await store.get(key, T0);
      expect(got?.bytes.equals(bytes)).toBe(true);
      expect(got?.meta).toEqual({ contentType: 'image/png', expiresAtMs: T0 + 15 * MINUTE });
      await store.put(key, Buffer.from('webp bytes'), { contentType: 'image/webp', expiresAtMs: T0 + 30 * MINUTE });
      const replaced = await store.get(key, T0);
      expect(replaced?.bytes.toString()).toBe('webp bytes');
      expect(replaced?.meta.contentType).toBe('image/webp');
    });

    it('get: null for a key never stored, and at or after the expiry', async () => {
      const { store } = await made;
      const key = `${space()}/clip.mp4`;
      expect(await store.get(key, T0)).toBeNull();
      await store.put(key, Buffer.from('mp4'), { contentType: 'video/mp4', expiresAtMs: T0 + MINUTE });
      expect(await store.get(key, T0 + MINUTE - 1)).not.toBeNull();
      expect(await store.get(key, T0 + MINUTE)).toBeNull();
    });

    it('delete removes a blob; deleting a missing one is fine', async () => {
      const { store } = await made;
      const key = `${space()}/a.wav`;
      await store.put(key, Buffer.from('wav'), { contentType: 'audio/wav', expiresAtMs: T0 + MINUTE });
      await store.delete(key);
      expect(await store.get(key, T0)).toBeNull();
      await store.delete(key);
    });

    it('sweep deletes what expired and keeps the rest', async () => {
      const { store } = await made;
      const base = space();
      await store.put(`${base}/old`, Buffer.from('old'), { contentType: 'text/plain', expiresAtMs: T0 + MINUTE });
      await store.put(`${base}/new`, Buffer.from('new'), { contentType: 'text/plain', expiresAtMs: T0 + 60 * MINUTE });
      expect(await store.sweep(T0 + 2 * MINUTE)).toBeGreaterThanOrEqual(1);
      expect(await store.get(`${base}/old`, T0)).toBeNull(); // gone, even for a reader whose clock says earlier
      expect((await store.get(`${base}/new`, T0 + 2 * MINUTE))?.bytes.toString()).toBe('new');
    });

    it('keys that could leave the store are refused', async () => {
      const { store } = await made;
      for (const key of ['../etc/passwd', 'jobs/../../x', '/abs', 'jobs//x', 'a b', '']) {
        await expect(
          store.put(key, Buffer.from('x'), { contentType: 'text/plain', expiresAtMs: T0 + MINUTE }),
        ).rejects.toThrow(/blob key refused/);
      }
    });
  });
}

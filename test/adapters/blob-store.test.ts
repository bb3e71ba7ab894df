/**
 * The blob-store conformance suite on memory, on a directory, and on an S3-compatible server run in this process
 * (s3rver 3.7, research/media.md B5: MinIO is archived and not in Debian), through the AWS SDK as at scale.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { FileBlobStore } from '../../src/adapters/blob-store/file.js';
import { MemoryBlobStore } from '../../src/adapters/blob-store/memory.js';
import { S3BlobStore } from '../../src/adapters/blob-store/s3.js';
import { blobStoreConformance } from './blob-store.conformance.js';

const scratch = (name: string) => mkdtempSync(join(tmpdir(), `cgw-${name}-`));

blobStoreConformance('memory', async () => ({ store: new MemoryBlobStore(), cleanup: async () => {} }));

blobStoreConformance('filesystem', async () => {
  const root = scratch('blobs');
  return { store: new FileBlobStore(root), cleanup: async () => rmSync(root, { recursive: true, force: true }) };
});

blobStoreConformance('S3 (s3rver)', async () => {
  const directory = scratch('s3rver');
  const server = new S3rver({
    port: 0,
    address: '127.0.0.1',
    directory,
    silent: true,
    configureBuckets: [{ name: 'media' }],
  });
  const { port } = await server.run();
  const store = new S3BlobStore({
    bucket: 'media',
    prefix: 'test/',
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  return {
    store,
    cleanup: async () => {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
});

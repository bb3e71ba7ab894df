import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { checkBlobKey } from './blob-key.js';
import type { BlobMeta, BlobStore, StoredBlob } from './index.js';

export interface S3BlobStoreOptions {
  bucket: string;
  /** Every key is stored under this prefix (several deployments may share a bucket). */
  prefix: string;
  region: string;
  /** An S3-compatible endpoint (path-style); unset for AWS itself. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/** Object metadata holding the expiry (S3 lifecycle rules count in days; the retentions here are minutes). */
const EXPIRES_AT = 'expires-at';

/**
 * Blobs as objects of an S3-compatible bucket (research/media.md B5). The expiry travels as object metadata;
 * readers check it, and the sweep lists the prefix and deletes what is past it. Checksums are only sent where
 * S3 requires them, which other S3-compatible servers accept too.
 */
export class S3BlobStore implements BlobStore {
  readonly #client: S3Client;

  constructor(private readonly options: S3BlobStoreOptions) {
    this.#client = new S3Client({
      region: options.region,
      ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint, forcePathStyle: true }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(key: string, bytes: Buffer, meta: BlobMeta): Promise<void> {
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.options.bucket,
        Key: this.#key(key),
        Body: bytes,
        ContentType: meta.contentType,
        Metadata: { [EXPIRES_AT]: String(meta.expiresAtMs) },
      }),
    );
  }

  async get(key: string, nowMs: number): Promise<StoredBlob | null> {
    try {
      const object = await this.#client.send(
        new GetObjectCommand({ Bucket: this.options.bucket, Key: this.#key(key) }),
      );
      const expiresAtMs = Number(object.Metadata?.[EXPIRES_AT]);
      const body = object.Body;
      if (!(expiresAtMs > nowMs) || body === undefined) {
        await body?.transformToByteArray(); // read to the end: an unread body holds its socket
        return null;
      }
      return {
        bytes: Buffer.from(await body.transformToByteArray()),
        meta: { contentType: object.ContentType ?? 'application/octet-stream', expiresAtMs },
      };
    } catch (err) {
      if (err instanceof NoSuchKey || err instanceof NotFound) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: this.#key(key) }));
  }

  async sweep(nowMs: number): Promise<number> {
    let swept = 0;
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({
          Bucket: this.options.bucket,
          Prefix: this.options.prefix,
          ContinuationToken: token,
        }),
      );
      for (const { Key } of page.Contents ?? []) {
        if (Key === undefined) continue;
        const expiresAtMs = await this.#expiry(Key);
        // An object without our expiry is not ours (a shared bucket): never deleted here.
        if (expiresAtMs === null || expiresAtMs > nowMs) continue;
        await this.#client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key }));
        swept++;
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return swept;
  }

  async close(): Promise<void> {
    this.#client.destroy();
  }

  /** An object's expiry, or null when it has none or is gone already. */
  async #expiry(Key: string): Promise<number | null> {
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key }));
      const expiresAtMs = Number(head.Metadata?.[EXPIRES_AT]);
      return Number.isFinite(expiresAtMs) ? expiresAtMs : null;
    } catch (err) {
      if (err instanceof NotFound || err instanceof NoSuchKey) return null;
      throw err;
    }
  }

  #key(key: string): string {
    return this.options.prefix + checkBlobKey(key);
  }
}

import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { FileBlobStore } from '../adapters/blob-store/file.js';
import type { BlobStore } from '../adapters/blob-store/index.js';
import { SafeMediaLoader } from '../adapters/media-fetch/safe-loader.js';
import type { Config } from '../config.js';
import { FileLinks } from '../domain/media/file-links.js';
import { AddressPolicy } from '../lib/address-policy.js';

/** A direct-download link needs none or a few; sign-in and share pages chain more (SPEC 7.4 says: send a direct link). */
const MEDIA_FETCH_MAX_REDIRECTS = 5;

/**
 * The embedded default keeps files in a directory; BLOB_STORE=s3 puts them in a bucket (DESIGN: one port, two stores).
 * The S3 client (MBs of code) is loaded only then.
 */
async function buildBlobStore(config: Config): Promise<BlobStore> {
  if (config.BLOB_STORE === 'file' || config.S3_BUCKET === undefined) return new FileBlobStore(config.BLOB_DIR); // loadConfig requires the bucket with s3
  const credentials =
    config.S3_ACCESS_KEY_ID !== undefined && config.S3_SECRET_ACCESS_KEY !== undefined
      ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
      : undefined;
  const { S3BlobStore } = await import('../adapters/blob-store/s3.js');
  return new S3BlobStore({
    bucket: config.S3_BUCKET,
    prefix: config.S3_PREFIX,
    region: config.S3_REGION,
    ...(config.S3_ENDPOINT === undefined ? {} : { endpoint: config.S3_ENDPOINT }),
    ...(credentials === undefined ? {} : { credentials }),
  });
}

/** Where clients reach the service (file links name it); unset, this process's own address, said in production. */
function publicBaseUrl(config: Config, logger: Logger): string {
  if (config.PUBLIC_BASE_URL !== undefined) return config.PUBLIC_BASE_URL.replace(/\/+$/, '');
  if (config.NODE_ENV === 'production')
    logger.warn("PUBLIC_BASE_URL is not set: file links name this process's own address");
  return `http://${config.HOST}:${config.PORT}`;
}

/**
 * FILE_LINK_SECRET signs file links; every process behind one address needs the same one. Unset, a process makes
 * its own, and its links stop working when it stops (fine for `make run`; said in a warning in production).
 */
function fileLinkSecret(config: Config, logger: Logger): Buffer {
  if (config.FILE_LINK_SECRET !== undefined) return Buffer.from(config.FILE_LINK_SECRET);
  if (config.NODE_ENV === 'production')
    logger.warn('FILE_LINK_SECRET is not set: file links are signed with a key of this process only');
  return randomBytes(32);
}

/** Media in and out: hosted files with their signed links, and reference media loaded SSRF-safely. */
export async function buildFiles(config: Config, logger: Logger) {
  const blobs = await buildBlobStore(config);
  const media = new SafeMediaLoader({
    policy: AddressPolicy.parse(config.MEDIA_FETCH_ALLOW),
    maxBytes: config.MEDIA_FETCH_MAX_BYTES,
    timeoutMs: config.MEDIA_FETCH_TIMEOUT_MS,
    maxRedirects: MEDIA_FETCH_MAX_REDIRECTS,
  });
  const fileLinks = new FileLinks(fileLinkSecret(config, logger), publicBaseUrl(config, logger));
  return { blobs, media, fileLinks };
}

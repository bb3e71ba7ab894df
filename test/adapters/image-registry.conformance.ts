/**
 * The behavioural contract of the image-registry port (src/adapters/image-registry/index.ts), run against the
 * OCI adapter on the fake registry and against the in-memory twin, so the twin answers callers' tests with the
 * shapes and error kinds the real adapter gives: a sized image (normalised reference, the platform manifest's
 * digest, compressed bytes, layers, the disk estimate), by tag and by digest; `not_found`, `unauthorized`,
 * `unsupported`, `invalid_reference`; and a caller's abort surfacing as the caller's own reason.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { UNPACK_FACTOR } from '../../src/adapters/image-registry/image-size.js';
import {
  type ImageRegistry,
  ImageRegistryError,
  type ImageRegistryErrorKind,
} from '../../src/adapters/image-registry/index.js';
import type { FakeImageFacts } from '../fixtures/fake-registry.js';

export interface ImageRegistryUnderTest {
  registry: ImageRegistry;
  /** `host[:port]`, as references name it. */
  host: string;
  /** What `<host>/team/multi:1.0` and `<host>/team/multi@<indexDigest>` size to on linux/amd64. */
  amd64: FakeImageFacts;
  indexDigest: string;
  cleanup(): Promise<void>;
}

export async function expectImageFailure(
  check: Promise<unknown>,
  kind: ImageRegistryErrorKind,
): Promise<ImageRegistryError> {
  const error = await check.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error, `expected ${kind}`).toBeInstanceOf(ImageRegistryError);
  expect((error as ImageRegistryError).kind, (error as Error).message).toBe(kind);
  return error as ImageRegistryError;
}

export function imageRegistryConformance(name: string, make: () => Promise<ImageRegistryUnderTest>): void {
  describe(`image registry: ${name}`, () => {
    let subject: ImageRegistryUnderTest;
    const ready = make().then((made) => (subject = made));
    afterAll(async () => {
      await subject?.registry.close();
      await subject?.cleanup();
    });

    it('an image by tag: the normalised reference, the platform manifest digest, its blobs and the disk estimate', async () => {
      await ready;
      const { host, amd64 } = subject;
      expect(await subject.registry.imageSize(`${host}/team/multi:1.0`)).toEqual({
        reference: `${host}/team/multi:1.0`,
        registry: host,
        repository: 'team/multi',
        tag: '1.0',
        digest: amd64.digest,
        compressedBytes: amd64.compressedBytes,
        layers: amd64.layers,
        estimatedDiskBytes: Math.ceil(amd64.compressedBytes * UNPACK_FACTOR),
      });
    });

    it('an image by digest: no tag, the digest kept in the reference', async () => {
      await ready;
      const { host, amd64, indexDigest } = subject;
      const size = await subject.registry.imageSize(`${host}/team/multi@${indexDigest}`);
      expect(size).toMatchObject({
        reference: `${host}/team/multi@${indexDigest}`,
        tag: null,
        digest: amd64.digest,
        compressedBytes: amd64.compressedBytes,
      });
    });

    it('an unknown tag → not_found; a private image → unauthorized; no manifest for the platform → unsupported', async () => {
      await ready;
      await expectImageFailure(subject.registry.imageSize(`${subject.host}/team/multi:no-such-tag`), 'not_found');
      await expectImageFailure(subject.registry.imageSize(`${subject.host}/team/private:1`), 'unauthorized');
      await expectImageFailure(subject.registry.imageSize(`${subject.host}/team/armonly:1`), 'unsupported');
    });

    it('not an image reference → invalid_reference', async () => {
      await ready;
      for (const reference of ['', 'Team/App:1', `${subject.host}/team/multi:.bad`, 'https://example.com/app']) {
        await expectImageFailure(subject.registry.imageSize(reference), 'invalid_reference');
      }
    });

    it("the caller's abort rejects with the caller's reason, not a verdict on the image", async () => {
      await ready;
      const reason = new Error('client went away');
      await expect(
        subject.registry.imageSize(`${subject.host}/team/multi:1.0`, { signal: AbortSignal.abort(reason) }),
      ).rejects.toBe(reason);
    });
  });
}

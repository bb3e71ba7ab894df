/**
 * The one behavioural contract of the media-reference port (src/adapters/media-fetch/index.ts; SPEC 2.11, 7.4):
 * links load as their bytes and declared type; data URIs and bare base64 (either alphabet) decode; anything else
 * is `undecodable`; media over the cap is `too_large`, inline or linked; a link with nothing behind it is
 * `unreachable`; a probe reads the first bytes of a link whatever its size.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { MediaLoadError, type MediaLoader, type MediaLoadFailure } from '../../src/adapters/media-fetch/index.js';

export interface MediaLoaderUnderTest {
  loader: MediaLoader;
  /** A link whose body is PNG_BYTES, declared image/png. */
  pngUrl: string;
  /** A link whose body is BIG_BYTES (over MAX_BYTES). */
  bigUrl: string;
  /** A link with nothing behind it (404 or unknown). */
  missingUrl: string;
  cleanup(): Promise<void>;
}

/** The cap every loader under test is built with. */
export const MAX_BYTES = 4096;
export const PNG_BYTES = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
export const BIG_BYTES = Buffer.alloc(MAX_BYTES + 1, 7);

export async function expectLoadFailure(load: Promise<unknown>, failure: MediaLoadFailure): Promise<void> {
  const err = await load.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err, `expected ${failure}`).toBeInstanceOf(MediaLoadError);
  expect((err as MediaLoadError).failure).toBe(failure);
}

export function mediaLoaderConformance(name: string, make: () => Promise<MediaLoaderUnderTest>): void {
  describe(`media loader: ${name}`, () => {
    let subject: MediaLoaderUnderTest;
    const ready = make().then((made) => (subject = made));
    afterAll(async () => {
      await subject?.loader.close();
      await subject?.cleanup();
    });

    it('a link: its bytes and declared type', async () => {
      await ready;
      const loaded = await subject.loader.load(subject.pngUrl);
      expect(loaded.bytes.equals(PNG_BYTES)).toBe(true);
      expect(loaded.declaredType).toBe('image/png');
    });

    it('a data URI: its bytes and its type; bare base64 in either alphabet: its bytes, no type', async () => {
      await ready;
      const dataUri = await subject.loader.load(`data:image/png;base64,${PNG_BYTES.toString('base64')}`);
      expect(dataUri.bytes.equals(PNG_BYTES)).toBe(true);
      expect(dataUri.declaredType).toBe('image/png');
      const bytes = Buffer.from([0xfb, 0xff, 0xfe, 0x01]);
      for (const encoded of [bytes.toString('base64'), bytes.toString('base64url')]) {
        const bare = await subject.loader.load(encoded);
        expect(bare.bytes.equals(bytes)).toBe(true);
        expect(bare.declaredType).toBeNull();
      }
    });

    it('neither a link nor base64 → undecodable', async () => {
      await ready;
      for (const reference of ['not base64 at all!', 'ftp://example.com/a.png', 'data:image/png;base64,', 'a']) {
        await expectLoadFailure(subject.loader.load(reference), 'undecodable');
      }
    });

    it('over the cap → too_large, inline or linked', async () => {
      await ready;
      await expectLoadFailure(subject.loader.load(BIG_BYTES.toString('base64')), 'too_large');
      await expectLoadFailure(subject.loader.load(subject.bigUrl), 'too_large');
    });

    it('a link with nothing behind it → unreachable', async () => {
      await ready;
      await expectLoadFailure(subject.loader.load(subject.missingUrl), 'unreachable');
    });

    it('probe: the first bytes of a link, also past the cap; all of a shorter one; unreachable as load', async () => {
      await ready;
      const head = await subject.loader.probe(subject.pngUrl, 8);
      expect(head.bytes.equals(PNG_BYTES.subarray(0, 8))).toBe(true);
      expect(head.declaredType).toBe('image/png');
      expect((await subject.loader.probe(subject.pngUrl, 1_000)).bytes.equals(PNG_BYTES)).toBe(true);
      expect((await subject.loader.probe(subject.bigUrl, 16)).bytes.equals(BIG_BYTES.subarray(0, 16))).toBe(true);
      await expectLoadFailure(subject.loader.probe(subject.missingUrl, 16), 'unreachable');
    });
  });
}

/**
 * Video files for media jobs (SPEC 2.12, 4.4): clips encoded off the event loop (H.264 MP4 on a worker thread),
 * remuxed to MOV without re-encoding, and any delivered file probed for its container, codec, size and length
 * (mediabunny), so a clip is served under its own type and billed by what it is.
 */
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { onFirstUse } from '../../lib/on-first-use.js';
import type { ClipSpec, VideoProbe } from './index.js';

/** mediabunny (MBs of demuxers and muxers) loads with the first video, not at start. */
const loadMediabunny = onFirstUse(() => import('mediabunny'));

/** The containers by extension, with the type each is served as. */
const CONTAINERS: Record<string, { ext: string; mime: string }> = {
  MP4: { ext: 'mp4', mime: 'video/mp4' },
  'QuickTime File Format': { ext: 'mov', mime: 'video/quicktime' },
  WebM: { ext: 'webm', mime: 'video/webm' },
};

/** What the bytes are (MP4, MOV or WebM with a video track) and how long they play; null for anything else. */
export async function probeVideo(bytes: Buffer): Promise<VideoProbe | null> {
  const { ALL_FORMATS, BufferSource, Input } = await loadMediabunny();
  try {
    const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
    const container = CONTAINERS[(await input.getFormat()).name];
    const track = await input.getPrimaryVideoTrack();
    if (container === undefined || track === null) return null;
    return {
      format: container.ext,
      mimeType: container.mime,
      durationSeconds: await input.computeDuration(),
      codec: track.codec,
      width: track.displayWidth,
      height: track.displayHeight,
    };
  } catch {
    return null;
  }
}

/** The same streams in a QuickTime container (no re-encoding). */
export async function remuxToMov(mp4: Buffer): Promise<Buffer> {
  const { ALL_FORMATS, BufferSource, BufferTarget, Conversion, Input, MovOutputFormat, Output } =
    await loadMediabunny();
  const target = new BufferTarget();
  const input = new Input({ source: new BufferSource(mp4), formats: ALL_FORMATS });
  const conversion = await Conversion.init({ input, output: new Output({ format: new MovOutputFormat(), target }) });
  await conversion.execute();
  if (target.buffer === null) throw new Error('remux produced nothing');
  return Buffer.from(target.buffer);
}

/** The jobs' module: compiled beside this one in a build; from source, through a loader that reads TypeScript. */
const JOBS_FILE = new URL(
  extname(fileURLToPath(import.meta.url)) === '.ts' ? './clip-jobs-from-source.mjs' : './clip-jobs.js',
  import.meta.url,
);

/** A thread stops after this long without work, so an idle gateway (or a test) keeps none. */
const IDLE_TIMEOUT_MS = 30_000;

/** Encodes clips on one worker thread, started on first use. */
export class ClipEncoder {
  #pool: Piscina | null = null;

  async mp4(spec: ClipSpec): Promise<Buffer> {
    this.#pool ??= new Piscina({
      filename: JOBS_FILE.href,
      minThreads: 0,
      maxThreads: 1,
      idleTimeout: IDLE_TIMEOUT_MS,
    });
    return Buffer.from((await this.#pool.run(spec, { name: 'renderClip' })) as Uint8Array);
  }

  async close(): Promise<void> {
    const pool = this.#pool;
    this.#pool = null;
    await pool?.destroy();
  }
}

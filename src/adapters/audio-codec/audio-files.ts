/**
 * Audio files for media jobs (SPEC 4.4 speech and music): PCM written as WAV (wavefile) or MP3 (LAME, through
 * @breezystack/lamejs), and any audio file probed for its container and length (file-type sniffs the bytes,
 * music-metadata reads the duration), so a delivered track is billed by what it really is.
 */
import { Mp3Encoder } from '@breezystack/lamejs';
import wavefile from 'wavefile';
import { onFirstUse } from '../../lib/on-first-use.js';
import type { AudioFormat, AudioProbe, Pcm } from './index.js';

/** The probes (several MB of parsers) load with the first audio file probed, not at start. */
const loadProbes = onFirstUse(async () => {
  const [{ fileTypeFromBuffer }, { parseBuffer }] = await Promise.all([import('file-type'), import('music-metadata')]);
  return { fileTypeFromBuffer, parseBuffer };
});

const MP3_KBPS = 64;
/** LAME takes samples in frames of this many. */
const MP3_FRAME = 1152;

export function encodeAudio(pcm: Pcm, format: AudioFormat): Buffer {
  if (format === 'wav') {
    const wav = new wavefile.WaveFile();
    wav.fromScratch(1, pcm.sampleRate, '16', pcm.samples);
    return Buffer.from(wav.toBuffer());
  }
  const encoder = new Mp3Encoder(1, pcm.sampleRate, MP3_KBPS);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < pcm.samples.length; i += MP3_FRAME)
    chunks.push(encoder.encodeBuffer(pcm.samples.subarray(i, i + MP3_FRAME)));
  chunks.push(encoder.flush());
  return Buffer.concat(chunks.map((chunk) => Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)));
}

/** What the bytes are and how long they play; null when they are not audio or their length cannot be read. */
export async function probeAudio(bytes: Buffer): Promise<AudioProbe | null> {
  const { fileTypeFromBuffer, parseBuffer } = await loadProbes();
  const type = await fileTypeFromBuffer(bytes);
  if (type === undefined || !(type.mime.startsWith('audio/') || type.ext === 'ogg')) return null;
  try {
    const { format } = await parseBuffer(bytes, { mimeType: type.mime }, { duration: true });
    if (format.duration === undefined || !Number.isFinite(format.duration)) return null;
    return { format: type.ext, mimeType: type.mime, durationSeconds: format.duration };
  } catch {
    return null;
  }
}

/**
 * A tone of `seconds` at `frequencyHz` with soft edges and a slow tremolo, so it is audibly a sound and not a
 * click: what the sandbox renders for speech and music (DESIGN 3: real files, made offline).
 */
export function tone(seconds: number, frequencyHz: number, sampleRate = 24_000): Pcm {
  const length = Math.max(1, Math.round(seconds * sampleRate));
  const samples = new Int16Array(length);
  const edge = Math.min(length / 2, sampleRate * 0.02);
  for (let i = 0; i < length; i++) {
    const envelope =
      Math.min(1, i / edge, (length - 1 - i) / edge) * (0.75 + 0.25 * Math.sin((2 * Math.PI * 3 * i) / sampleRate));
    samples[i] = Math.round(0.4 * 32767 * envelope * Math.sin((2 * Math.PI * frequencyHz * i) / sampleRate));
  }
  return { samples, sampleRate };
}

/**
 * Video clips encoded on a worker thread (the encoder is WebAssembly and runs synchronously): H.264 in MP4, from
 * frames drawn here, a diagonal gradient in the colour given that drifts across the picture, so each frame differs
 * and a player shows motion. MIT-licensed encoder (h264-mp4-encoder), no system ffmpeg.
 */
import HME from 'h264-mp4-encoder';
import type { ClipSpec } from './index.js';

export async function renderClip(spec: ClipSpec): Promise<Uint8Array> {
  const encoder = await HME.createH264MP4Encoder();
  try {
    Object.assign(encoder, {
      width: spec.width,
      height: spec.height,
      frameRate: spec.fps,
      quantizationParameter: 33,
      speed: 10,
    });
    encoder.initialize();
    const frame = new Uint8Array(spec.width * spec.height * 4);
    const [r, g, b] = spec.rgb;
    for (let f = 0; f < spec.frames; f++) {
      const shift = Math.round((f * spec.width) / Math.max(1, spec.frames));
      for (let y = 0; y < spec.height; y++) {
        for (let x = 0; x < spec.width; x++) {
          const i = (y * spec.width + x) * 4;
          const t = ((x + y + shift) % spec.width) / spec.width;
          frame[i] = Math.round(r * t);
          frame[i + 1] = Math.round(g * (1 - t));
          frame[i + 2] = Math.round(b * 0.5 + 127 * t);
          frame[i + 3] = 255;
        }
      }
      encoder.addFrameRgba(frame);
    }
    encoder.finalize();
    return encoder.FS.readFile(encoder.outputFilename);
  } finally {
    encoder.delete();
  }
}

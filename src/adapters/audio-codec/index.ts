/**
 * Audio files for media jobs (SPEC 4.4 speech and music): what is encoded and what a probe reports. The
 * implementation is audio-files.ts (WAV through wavefile, MP3 through LAME, probing through file-type and
 * music-metadata).
 */
export type AudioFormat = 'wav' | 'mp3';

export const AUDIO_MIME: Record<AudioFormat, string> = { wav: 'audio/wav', mp3: 'audio/mpeg' };

/** 16-bit mono samples at `sampleRate`. */
export interface Pcm {
  samples: Int16Array;
  sampleRate: number;
}

export interface AudioProbe {
  /** The container by its usual extension: `wav`, `mp3`, `ogg`, `flac`, `m4a`, … */
  format: string;
  mimeType: string;
  durationSeconds: number;
}

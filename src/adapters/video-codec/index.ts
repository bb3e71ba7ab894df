/**
 * Video files for media jobs (SPEC 2.12, 4.4): what a probe reports and what a clip is drawn from. The
 * implementation is video-files.ts (mediabunny; clips encoded on a worker thread, clip-jobs.ts).
 */
export interface VideoProbe {
  format: string;
  mimeType: string;
  durationSeconds: number;
  codec: string | null;
  width: number | null;
  height: number | null;
}

/** A clip the sandbox renders: a drifting gradient in `rgb`, `frames` frames at `fps`. */
export interface ClipSpec {
  width: number;
  height: number;
  frames: number;
  fps: number;
  rgb: [number, number, number];
}

/**
 * Images the gateway delivers or inspects (SPEC 2.11): the formats it encodes to and what an encoding returns. The
 * implementation is sharp-images.ts (sharp).
 */
/** SPEC 2.11 `output_format` (`jpg` is `jpeg`). */
export type OutputFormat = 'png' | 'jpeg' | 'webp';

export interface EncodedImage {
  bytes: Buffer;
  mimeType: string;
  /** What was delivered: the format asked for, or `png` when re-encoding failed (SPEC 2.11). */
  format: OutputFormat;
}

/**
 * How the sandbox reads an edit's reference image (issue rule: reference images are decoded only at a bounded
 * size): its size from the header alone, then its colour from a bounded thumbnail (image-codec dominantColour).
 */
import { dominantColour, inspectImage } from '../image-codec/sharp-images.js';
import { UpstreamError } from './index.js';

/** The most pixels a reference may have: a 50-megapixel photo passes; more is refused, as vendors cap theirs. */
export const SANDBOX_REFERENCE_MAX_PIXELS = 50_000_000;

/** The reference's dominant colour; one too large or unreadable is refused as a vendor refuses it (400), never a crash. */
export async function referenceColour(bytes: Buffer): Promise<{ r: number; g: number; b: number }> {
  const image = await inspectImage(bytes);
  if (image === null) throw refused('the reference is not an image');
  if (image.width * image.height > SANDBOX_REFERENCE_MAX_PIXELS) {
    throw refused(
      `the reference is ${image.width}×${image.height}; at most ${SANDBOX_REFERENCE_MAX_PIXELS} pixels are read`,
    );
  }
  try {
    return await dominantColour(bytes, SANDBOX_REFERENCE_MAX_PIXELS);
  } catch {
    throw refused('the reference could not be decoded');
  }
}

function refused(reason: string): UpstreamError {
  return new UpstreamError({ kind: 'http', status: 400, message: `sandbox: ${reason}` });
}

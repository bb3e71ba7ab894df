import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import { type ImageDetail, type ImagePart, imagePartTokens } from '../text/image-tokens.js';

/** What a request's image parts were held at, kept with the request until its usage comes back. */
export interface ImageHold {
  parts: ImagePart[];
  /** The image parts' share of the prompt estimate. */
  tokens: number;
}

/**
 * Image parts are held by the model's own rule (image-tokens.ts), and by what its upstreams have reported (issue 23,
 * item 1: "the next requests of that shape are held at the reported size"). The shape is the model and the image
 * part's `detail`: when an upstream reports more prompt tokens than a request with image parts was held for, the
 * excess over its text is spread over its image parts, and from then on every image part of that model and detail
 * is held at no less than that per-part size. The request that taught it was charged up to its hold, the rest
 * posted as the platform's loss and alerted (Billing, `platform_loss`). Kept per process and lost on restart; at
 * most two sizes per catalog row, so it cannot grow with traffic.
 */
export class ImageHolds {
  private readonly reported = new Map<string, number>();

  /** The image parts of a request on `entry`, each at the larger of its rule and its shape's reported size. */
  hold(entry: CatalogFileEntry, parts: ImagePart[]): ImageHold {
    let tokens = 0;
    for (const part of parts)
      tokens += Math.max(
        imagePartTokens(entry.image_tokens, part.size, part.detail),
        this.reportedSize(entry.slug, part.detail),
      );
    return { parts, tokens };
  }

  /** An upstream reported `reportedPromptTokens` for a request held at `heldPromptTokens`, `images` of them images. */
  learn(slug: string, images: ImageHold, heldPromptTokens: number, reportedPromptTokens: number): void {
    if (images.parts.length === 0 || reportedPromptTokens <= heldPromptTokens) return;
    const textTokens = heldPromptTokens - images.tokens;
    const perPart = Math.ceil((reportedPromptTokens - textTokens) / images.parts.length);
    for (const { detail } of images.parts) {
      if (perPart > this.reportedSize(slug, detail)) this.reported.set(shapeOf(slug, detail), perPart);
    }
  }

  private reportedSize(slug: string, detail: ImageDetail): number {
    return this.reported.get(shapeOf(slug, detail)) ?? 0;
  }
}

const shapeOf = (slug: string, detail: ImageDetail) => `${slug} ${detail}`;

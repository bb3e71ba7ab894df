import type { components } from '../../../generated/openapi.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import type { Micros } from '../billing/money.js';
import type { CatalogFileEntry } from '../catalog/catalog-file.js';
import type { CallerDiscounts, ModelCatalog } from '../catalog/model-catalog.js';
import { imageCost } from '../pricing/index.js';

type ImageRequest = components['schemas']['ImageRequest'];

/** What an image request resolves to (SPEC 2.11): the SKU billed, its shape and pricing tier, how many images. */
export interface ImagePlan {
  /** The row billed: the one asked for, or its resolution-tier SKU (`usage.model` / the job's `model`). */
  entry: CatalogFileEntry;
  /** The `pricing` key billed; undefined when the row has one price per image. */
  tier: string | undefined;
  /** `WxH`, for models that take pixel sizes. */
  size: string | null;
  /** `W:H` or `auto`, for models that take aspect ratios. */
  aspectRatio: string | null;
  /** The pixels delivered: the listed size, or the size asked for (never smaller), or the tier's at the aspect. */
  width: number;
  height: number;
  n: number;
}

/** A requested shape: pixels, a ratio, or the model's choice. */
type Shape = { kind: 'pixels'; width: number; height: number } | { kind: 'ratio'; ratio: number } | { kind: 'auto' };

const RESOLUTION_TIERS = ['1K', '2K', '4K'] as const;
const MEGAPIXEL_TIERS = ['1MP', '2MP', '4MP'] as const;
/** SPEC 2.11 (via 4.6): what `quality` bills on a quality-priced model. */
const QUALITY_TIER: Record<string, string> = {
  low: 'low',
  medium: 'medium',
  high: 'high',
  hd: 'high',
  standard: 'medium',
  auto: 'medium',
};

/**
 * SPEC 2.11: the model must be an image model; references at most its cap; an edit-only model needs one; `size`
 * snaps to the model's own shapes, and a family with resolution tiers bills the tier the size needs, as the SKU
 * row of that tier when the catalog lists one (imgG-2 → imgG-2-2k, imgN-pro → imgN-pro-4k), never smaller than
 * asked (nor than the SKU asked for).
 */
export function planImage(catalog: ModelCatalog, request: ImageRequest): ImagePlan {
  const asked = catalog.find(request.model);
  // Restoration rows (credit-metered) are image models of their own endpoints (SPEC 4.4 topaz).
  if (asked === undefined || asked.media_kind !== 'image' || asked.credit_metered) {
    throw new ApiError('model_not_found', `Model "${request.model}" is not an image generation model of the catalog`, {
      meta: { slug: request.model },
    });
  }
  checkReferences(asked, request.input_images?.length ?? 0);
  const shape = parseShape(request.size);
  const n = request.n ?? 1;
  const { sizes, aspect_ratios: aspects } = asked.capabilities;
  if (sizes !== undefined && sizes.length > 0) {
    const size = closestSize(sizes, shape);
    const [width = 1024, height = 1024] = size.split('x').map(Number);
    return {
      entry: asked,
      tier: pricingTier(asked, shape, request.quality, size),
      size,
      aspectRatio: null,
      width,
      height,
      n,
    };
  }
  const entry = resolutionSku(catalog, asked, shape);
  const tier = pricingTier(entry, shape, request.quality);
  const aspectRatio = aspects === undefined ? null : closestAspect(entry.capabilities.aspect_ratios ?? aspects, shape);
  return { entry, tier, size: null, aspectRatio, ...pixelsFor(shape, aspectRatio, tier), n };
}

/** The long side of a tier's images (1K, 1 MP and single-price rows: 1024). */
const TIER_LONG_SIDE: Record<string, number> = { '2K': 2048, '4K': 4096, '2MP': 1448, '4MP': 2048 };
/** The longest side a tier can make: its own, 1024 for 1K / 1 MP, else 2048 (single-price and quality-priced rows). */
const maxLongSide = (tier: string | undefined): number =>
  TIER_LONG_SIDE[tier ?? ''] ?? (tier === '1K' || tier === '1MP' ? 1024 : 2048);

/**
 * Pixels for an aspect-ratio model: the size asked for where given (shrunk, aspect kept, to what the tier billed
 * can make: a size is never paid for at one tier and rendered at a larger one), else the tier's long side.
 */
function pixelsFor(
  shape: Shape,
  aspectRatio: string | null,
  tier: string | undefined,
): { width: number; height: number } {
  if (shape.kind === 'pixels') {
    const scale = Math.min(1, maxLongSide(tier) / Math.max(shape.width, shape.height));
    return {
      width: Math.max(1, Math.round(shape.width * scale)),
      height: Math.max(1, Math.round(shape.height * scale)),
    };
  }
  const long = TIER_LONG_SIDE[tier ?? ''] ?? 1024;
  const ratio = aspectRatio === null || aspectRatio === 'auto' ? 1 : ratioOf(aspectRatio);
  return ratio >= 1
    ? { width: long, height: Math.round(long / ratio) }
    : { width: Math.round(long * ratio), height: long };
}

/** What `images` images of a plan cost at `discounts`: the one price the estimate, the hold and the charge all use. */
export function planCost(plan: ImagePlan, images: number, discounts: CallerDiscounts): Micros {
  return imageCost(plan.entry, plan.tier === undefined ? { images } : { images, tier: plan.tier }, discounts);
}

function checkReferences(entry: CatalogFileEntry, references: number): void {
  const cap = entry.capabilities.max_reference_images ?? 0;
  if (references > cap) {
    throw invalidField(
      ['body', 'input_images'],
      `${references} reference images; ${entry.slug} takes at most ${cap}`,
      'maxItems',
    );
  }
  if (entry.capabilities.edit_only === true && references === 0) {
    throw new ApiError('upstream_validation_error', `${entry.slug} edits images and needs at least one reference`, {
      meta: { hint: 'send the image to edit in input_images' },
    });
  }
}

function parseShape(size: string | undefined): Shape {
  if (size === undefined || size === 'auto') return { kind: 'auto' };
  const [a = 0, b = 0] = size.split(/[x:]/).map(Number);
  if (a < 1 || b < 1) throw invalidField(['body', 'size'], `${size}: both sides must be at least 1`, 'pattern');
  return size.includes('x') ? { kind: 'pixels', width: a, height: b } : { kind: 'ratio', ratio: a / b };
}

const ratioOf = (text: string): number => {
  const [a = 1, b = 1] = text.split(/[x:]/).map(Number);
  return a / b;
};

/** How far apart two aspect ratios look: 16:9 is as far from 1:1 as 9:16. */
const aspectDistance = (a: number, b: number): number => Math.abs(Math.log(a / b));

/** A listed pixel size: the closest aspect, then the closest area (`auto`: the first listed, the model's default). */
function closestSize(sizes: readonly string[], shape: Shape): string {
  if (shape.kind === 'auto') return sizes[0]!;
  const ratio = shape.kind === 'pixels' ? shape.width / shape.height : shape.ratio;
  const area = shape.kind === 'pixels' ? shape.width * shape.height : null;
  const areaOf = (size: string) =>
    size
      .split('x')
      .map(Number)
      .reduce((x, y) => x * y, 1);
  return [...sizes].sort(
    (x, y) =>
      aspectDistance(ratioOf(x), ratio) - aspectDistance(ratioOf(y), ratio) ||
      (area === null ? 0 : Math.abs(areaOf(x) - area) - Math.abs(areaOf(y) - area)),
  )[0]!;
}

/** A listed aspect ratio; `auto` stays `auto` where listed, else square (kontext-style rows have no `auto`). */
function closestAspect(aspects: readonly string[], shape: Shape): string {
  const numeric = aspects.filter((a) => a !== 'auto');
  if (shape.kind === 'auto' && aspects.includes('auto')) return 'auto';
  if (shape.kind === 'auto') return numeric.includes('1:1') ? '1:1' : numeric[0]!;
  const ratio = shape.kind === 'pixels' ? shape.width / shape.height : shape.ratio;
  return [...numeric].sort((x, y) => aspectDistance(ratioOf(x), ratio) - aspectDistance(ratioOf(y), ratio))[0]!;
}

/** The resolution tier a shape needs: by its long side in pixels (a ratio or `auto` is the base tier). */
function neededResolution(shape: Shape): number {
  if (shape.kind !== 'pixels') return 0;
  const long = Math.max(shape.width, shape.height);
  return long > 2048 ? 2 : long > 1024 ? 1 : 0;
}

/**
 * For a row priced by resolution (`1K`/`2K`/`4K`): the SKU of the tier the size needs, never below the row asked
 * for. A family lists its higher tiers as rows of their own (`<base>-2k`, `<base>-4k`), which name the tier billed;
 * else the row itself where it is priced at that tier; else the largest tier it has (the size snaps down to what
 * the model can make).
 */
function resolutionSku(catalog: ModelCatalog, asked: CatalogFileEntry, shape: Shape): CatalogFileEntry {
  const tiers = resolutionTiers(asked);
  if (tiers.length === 0) return asked;
  const needed = Math.max(neededResolution(shape), Math.min(...tiers));
  if (needed === Math.min(...tiers)) return asked;
  const base = asked.slug.replace(/-[24]k$/, '');
  for (let tier = needed; tier < RESOLUTION_TIERS.length; tier++) {
    const sku = catalog.find(`${base}-${RESOLUTION_TIERS[tier]!.toLowerCase()}`);
    if (sku !== undefined && sku.media_kind === 'image') return sku;
    if (tiers.includes(tier)) return asked;
  }
  return asked;
}

/** Indexes (0 = 1K) of the resolution tiers a row is priced at. */
function resolutionTiers(entry: CatalogFileEntry): number[] {
  return RESOLUTION_TIERS.flatMap((tier, index) =>
    entry.pricing !== null && Object.hasOwn(entry.pricing, tier) ? [index] : [],
  );
}

/**
 * The `pricing` key a request bills on its row, or undefined for a single per-image price: its pixel size where
 * sizes are priced, else its resolution, megapixel or quality tier.
 */
function pricingTier(
  entry: CatalogFileEntry,
  shape: Shape,
  quality: string | undefined,
  size?: string,
): string | undefined {
  if (entry.pricing === null) return undefined;
  if (size !== undefined && Object.hasOwn(entry.pricing, size)) return size;
  const tiers = resolutionTiers(entry);
  if (tiers.length > 0)
    return RESOLUTION_TIERS[Math.min(Math.max(neededResolution(shape), Math.min(...tiers)), Math.max(...tiers))];
  if (Object.hasOwn(entry.pricing, MEGAPIXEL_TIERS[0])) return megapixelTier(shape);
  return tierIfPriced(entry, QUALITY_TIER[quality ?? 'auto']);
}

/** Megapixel-priced rows (flux-2-pro): the area, rounded up to 1, 2 or 4 MP of 1024 × 1024; a ratio or `auto` is 1 MP. */
function megapixelTier(shape: Shape): string {
  const megapixels = shape.kind === 'pixels' ? (shape.width * shape.height) / (1024 * 1024) : 1;
  return megapixels <= 1 ? '1MP' : megapixels <= 2 ? '2MP' : '4MP';
}

function tierIfPriced(entry: CatalogFileEntry, tier: string | undefined): string | undefined {
  return tier !== undefined && entry.pricing !== null && Object.hasOwn(entry.pricing, tier) ? tier : undefined;
}

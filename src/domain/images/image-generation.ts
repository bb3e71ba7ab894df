import type { components } from '../../../generated/openapi.js';
import type { OutputFormat } from '../../adapters/image-codec/index.js';
import { encodeImage, inspectImage } from '../../adapters/image-codec/sharp-images.js';
import { type ImageCall, type ImageResult, UpstreamError } from '../../adapters/upstream/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { CancelSignal } from '../../lib/cancel-signal.js';
import { releasingOnFailure } from '../billing/billed-chain.js';
import type { Billing, CallDetails } from '../billing/billing.js';
import { type Micros, microsToUsd } from '../billing/money.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import { renderTimeoutMessage } from '../jobs/job-failure.js';
import type { Principal } from '../keys/authenticator.js';
import { IMAGE_RETENTION_MS } from '../limits.js';
import type { Route, RouteTable } from '../routing/route-table.js';
import { type ChainHooks, runChain } from '../routing/run-chain.js';
import { type ImagePlan, planCost, planImage } from './image-plan.js';
import { hostReferences, type ReferenceDeps } from './references.js';

type ImageRequest = components['schemas']['ImageRequest'];
type ImageGenerationBody = components['schemas']['ImageGeneration'];

const EXTENSION: Record<OutputFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

export interface ImageGenerationDeps extends ReferenceDeps {
  catalog: ModelCatalog;
  routes: RouteTable;
  billing: Billing;
  now: () => number;
}

/** An image delivered and hosted: its bytes (for `b64_json`), where it is hosted, and the link to it. */
export interface HostedImage {
  name: string;
  bytes: Buffer;
  format: OutputFormat;
  mimeType: 'image/png' | 'image/jpeg' | 'image/webp';
  url: string;
}

export interface RenderedImages {
  images: HostedImage[];
  provider: string;
  /** The format delivered, echoed in `usage.output_format`: the one asked for, or PNG where re-encoding failed. */
  format: OutputFormat;
}

/** What the charge and the `usage` of delivered images are computed from (a job keeps it in its record). */
export type Delivery = { images: readonly unknown[]; provider: string; format: OutputFormat };

/**
 * SPEC 2.11, 4.4 synchronous images: planned and priced as the estimate is, the estimate held, the references
 * loaded and hosted, the chain walked, each image re-encoded to `output_format`, hosted (never an upstream link
 * passed on) and linked, then the images delivered charged. An unusable reference, a chain that fails or runs out
 * of time, or images that cannot be hosted cost nothing.
 */
export async function generateImages(
  deps: ImageGenerationDeps,
  principal: Principal,
  requestId: string,
  request: ImageRequest,
  signal: CancelSignal,
  hooks: ChainHooks,
): Promise<ImageGenerationBody> {
  const plan = planImage(deps.catalog, request);
  const chain = deps.routes.chain(plan.entry.slug, 'image');
  const reservation = await deps.billing.reserve(principal, requestId, planCost(plan, plan.n, principal.account));
  const rendered = await releasingOnFailure(deps.billing, reservation, async () => {
    // Fetched only once the money is held: a key that cannot pay never makes us download anything.
    const references = await hostReferences(
      deps,
      requestId,
      request.input_images ?? [],
      deps.now() + IMAGE_RETENTION_MS,
    );
    return renderImages(deps, plan, chain, request, references, requestId, signal, hooks);
  });
  const charge = await deps.billing.settle(
    reservation,
    planCost(plan, rendered.images.length, principal.account),
    imageCallDetails(plan, rendered),
  );
  return {
    created: Math.floor(deps.now() / 1000),
    data: rendered.images.map((image) => ({
      url: image.url,
      ...(request.response_format === 'url' ? {} : { b64_json: image.bytes.toString('base64') }),
      mime_type: image.mimeType,
    })),
    usage: imageUsage(plan, rendered, charge.costMicros),
  };
}

/**
 * Walks the chain for a planned request and hosts what it delivered: each image re-encoded to `output_format`
 * and hosted as `<prefix>-<i>.<ext>` for 15 minutes from delivery. A chain that runs out of time is 504
 * `render_timeout` (SPEC 7.2).
 */
export async function renderImages(
  deps: ImageGenerationDeps,
  plan: ImagePlan,
  chain: readonly Route[],
  request: ImageRequest,
  references: ImageCall['references'],
  prefix: string,
  signal: CancelSignal,
  hooks: ChainHooks,
): Promise<RenderedImages> {
  const call = {
    prompt: request.prompt,
    n: plan.n,
    width: plan.width,
    height: plan.height,
    aspectRatio: plan.aspectRatio,
    ...(request.quality === undefined ? {} : { quality: request.quality }),
    references,
    signal,
    deadlineAtMs: hooks.deadlineAtMs,
  };
  const outcome = await runChain(
    chain,
    async (route) =>
      checkedImages(route.providerName, await route.provider.image!({ ...call, upstreamModel: route.upstreamModel })),
    hooks,
  ).catch((err: unknown) => {
    if (!(err instanceof ApiError && err.code === 'upstream_timeout')) throw err;
    throw hooks.budgetMs === undefined
      ? new ApiError('render_timeout')
      : new ApiError('render_timeout', renderTimeoutMessage(hooks.budgetMs));
  });
  const format: OutputFormat = request.output_format === 'jpg' ? 'jpeg' : (request.output_format ?? 'png');
  const deliveredUntilMs = deps.now() + IMAGE_RETENTION_MS; // from delivery: a link lives its 15 minutes after the render
  const images = await Promise.all(
    outcome.value.slice(0, plan.n).map(async (source, i): Promise<HostedImage> => {
      const image = await encodeImage(source.bytes, source.format, format);
      const name = `${prefix}-${i}.${EXTENSION[image.format]}`;
      await deps.blobs.put(name, image.bytes, { contentType: image.mimeType, expiresAtMs: deliveredUntilMs });
      return {
        name,
        bytes: image.bytes,
        format: image.format,
        mimeType: image.mimeType as HostedImage['mimeType'],
        url: deps.fileLinks.link(name, deliveredUntilMs),
      };
    }),
  );
  return { images, provider: outcome.route.providerName, format: images[0]?.format ?? format };
}

/** The usage line of delivered images (SPEC 2.6). */
export function imageCallDetails(plan: ImagePlan, rendered: Delivery): CallDetails {
  return {
    model: plan.entry.slug,
    kind: 'image',
    endpoint: 'images.generations',
    metadata: {
      provider: rendered.provider,
      images: rendered.images.length,
      size: `${plan.width}x${plan.height}`,
      output_format: rendered.format,
    },
  };
}

/** The response's `usage` (SPEC 2.11): the tier billed, what was delivered, what it cost. */
export function imageUsage(plan: ImagePlan, rendered: Delivery, costMicros: Micros): ImageGenerationBody['usage'] {
  return {
    model: plan.entry.slug,
    images: rendered.images.length,
    size: `${plan.width}x${plan.height}`,
    aspect_ratio: plan.aspectRatio,
    output_format: rendered.format,
    cost: microsToUsd(costMicros),
  };
}

/**
 * What an upstream delivered, each image sniffed (a vendor's label is not trusted): no images, or bytes that are
 * not an image, are a bad answer, so the chain moves on and nothing is charged for them.
 */
async function checkedImages(provider: string, result: ImageResult): Promise<{ bytes: Buffer; format: string }[]> {
  if (result.images.length === 0)
    throw new UpstreamError({ kind: 'bad_response', message: `${provider} delivered no image` });
  return Promise.all(
    result.images.map(async ({ bytes }) => {
      const image = await inspectImage(bytes);
      if (image === null)
        throw new UpstreamError({ kind: 'bad_response', message: `${provider} delivered bytes that are not an image` });
      return { bytes, format: image.format };
    }),
  );
}

import type { components } from '../../../generated/openapi.js';
import { encodeImage, inspectImage, type OutputFormat } from '../../adapters/image-codec/index.js';
import { UpstreamError, type ImageResult } from '../../adapters/upstream/index.js';
import type { CancelSignal } from '../../cancel-signal.js';
import { ApiError } from '../../errors/api-error.js';
import type { Principal } from '../authenticator.js';
import { releasingOnFailure, runReservedChain } from '../billed-chain.js';
import type { Billing } from '../billing.js';
import type { ModelCatalog } from '../catalog/model-catalog.js';
import { microsToUsd } from '../money.js';
import type { RouteTable } from '../routing/route-table.js';
import type { ChainHooks } from '../routing/run-chain.js';
import { planCost, planImage } from './image-plan.js';
import { hostReferences, type ReferenceDeps } from './references.js';

type ImageRequest = components['schemas']['ImageRequest'];
type ImageGenerationBody = components['schemas']['ImageGeneration'];

/** SPEC 8: images are kept (and their links work) 15 minutes. */
export const IMAGE_RETENTION_MS = 15 * 60_000;

const EXTENSION: Record<OutputFormat, string> = { png: 'png', jpeg: 'jpg', webp: 'webp' };

export interface ImageGenerationDeps extends ReferenceDeps {
  catalog: ModelCatalog;
  routes: RouteTable;
  billing: Billing;
  now: () => number;
}

/**
 * SPEC 2.11, 4.4 synchronous images: planned and priced as the estimate is, the estimate held, the references
 * loaded and hosted, the chain walked, each image re-encoded to `output_format`, hosted (never an upstream link
 * passed on) and linked, then the images delivered charged. An unusable reference, a chain that fails or runs out
 * of time, or images that cannot be hosted cost nothing.
 */
export async function generateImages(deps: ImageGenerationDeps, principal: Principal, requestId: string, request: ImageRequest, signal: CancelSignal, hooks: ChainHooks): Promise<ImageGenerationBody> {
  const plan = planImage(deps.catalog, request);
  const chain = deps.routes.chain(plan.entry.slug, 'image');
  const reservation = await deps.billing.reserve(principal, requestId, planCost(plan, plan.n, principal.account));
  // Fetched only once the money is held: a key that cannot pay never makes us download anything.
  const references = await releasingOnFailure(deps.billing, reservation, () => hostReferences(deps, requestId, request.input_images ?? [], deps.now() + IMAGE_RETENTION_MS));
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
  const outcome = await runReservedChain(
    deps.billing,
    reservation,
    chain,
    async (route) => checkedImages(route.providerName, await route.provider.image!({ ...call, upstreamModel: route.upstreamModel })),
    hooks,
  ).catch((err: unknown) => {
    throw err instanceof ApiError && err.code === 'upstream_timeout' ? new ApiError('render_timeout') : err;
  });
  const format: OutputFormat = request.output_format === 'jpg' ? 'jpeg' : (request.output_format ?? 'png');
  const deliveredUntilMs = deps.now() + IMAGE_RETENTION_MS; // from delivery: a link lives its 15 minutes after the render
  const delivered = await releasingOnFailure(deps.billing, reservation, () =>
    Promise.all(
      outcome.value.slice(0, plan.n).map(async (source, i) => {
        const image = await encodeImage(source.bytes, source.format, format);
        const name = `${requestId}-${i}.${EXTENSION[image.format]}`;
        await deps.blobs.put(name, image.bytes, { contentType: image.mimeType, expiresAtMs: deliveredUntilMs });
        return { image, url: deps.fileLinks.link(name, deliveredUntilMs) };
      }),
    ),
  );
  const deliveredFormat = delivered[0]?.image.format ?? format;
  const charge = await deps.billing.settle(reservation, planCost(plan, delivered.length, principal.account), {
    model: plan.entry.slug,
    kind: 'image',
    endpoint: 'images.generations',
    metadata: { provider: outcome.route.providerName, images: delivered.length, size: `${plan.width}x${plan.height}`, output_format: deliveredFormat },
  });
  return {
    created: Math.floor(deps.now() / 1000),
    data: delivered.map(({ image, url }) => ({
      url,
      ...(request.response_format === 'url' ? {} : { b64_json: image.bytes.toString('base64') }),
      mime_type: image.mimeType as 'image/png' | 'image/jpeg' | 'image/webp',
    })),
    usage: { model: plan.entry.slug, images: delivered.length, size: `${plan.width}x${plan.height}`, aspect_ratio: plan.aspectRatio, output_format: deliveredFormat, cost: microsToUsd(charge.costMicros) },
  };
}

/**
 * What an upstream delivered, each image sniffed (a vendor's label is not trusted): no images, or bytes that are
 * not an image, are a bad answer, so the chain moves on and nothing is charged for them.
 */
async function checkedImages(provider: string, result: ImageResult): Promise<{ bytes: Buffer; format: string }[]> {
  if (result.images.length === 0) throw new UpstreamError({ kind: 'bad_response', message: `${provider} delivered no image` });
  return Promise.all(
    result.images.map(async ({ bytes }) => {
      const image = await inspectImage(bytes);
      if (image === null) throw new UpstreamError({ kind: 'bad_response', message: `${provider} delivered bytes that are not an image` });
      return { bytes, format: image.format };
    }),
  );
}

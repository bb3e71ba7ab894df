import { generateImages } from '../../domain/images/image-generation.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler, RequestContext } from '../../http/operation-types.js';
import { UNCANCELLABLE } from '../../lib/cancel-signal.js';
import { requirePrincipal } from '../require-principal.js';

/** Both surfaces render the same way; the render budget (SPEC 8: 300 seconds) is the request's deadline. */
function render({ deps, principal, requestId, body }: RequestContext<'createImage' | 'createCompatImage'>) {
  const hooks = deps.chainHooks(requestId, body!.model, deps.config.IMAGE_RENDER_BUDGET_MS);
  return generateImages(deps, requirePrincipal(principal), requestId, body!, UNCANCELLABLE, hooks);
}

export const createImage: Handler<'createImage'> = async (ctx) => ({ status: 200, body: nativeOk(await render(ctx)) });

/**
 * OpenAI's `ImagesResponse` requires token counts in `usage`, which per-image billing does not have: the compat
 * answer leaves `usage` out rather than fail its clients' schemas (issue 24); the native answer keeps ours.
 */
export const createCompatImage: Handler<'createCompatImage'> = async (ctx) => {
  const { usage: _usage, ...images } = await render(ctx);
  return { status: 200, body: images };
};

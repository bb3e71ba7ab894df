import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { UNCANCELLABLE } from '../../lib/cancel-signal.js';
import { requirePrincipal } from '../require-principal.js';
import { recommendationView } from '../views/recommendation-views.js';

/** SPEC 2.13; a key is required (docs/decisions.md: the answer reads live inventory and may be billed). */
export const createRecommendation: Handler<'createRecommendation'> = async ({ deps, principal, requestId, body }) => {
  const recommendation = await deps.recommendations.recommend(
    requirePrincipal(principal),
    requestId,
    body!.query,
    UNCANCELLABLE,
    (slug) => deps.chainHooks(requestId, slug),
  );
  return { status: 200, body: nativeOk(recommendationView(recommendation)) };
};

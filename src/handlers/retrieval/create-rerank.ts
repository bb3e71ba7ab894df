import { createRerank as rerank } from '../../domain/retrieval/rerank.js';
import type { Handler } from '../../http/operation-types.js';
import { UNCANCELLABLE } from '../../lib/cancel-signal.js';
import { requirePrincipal } from '../require-principal.js';

export const createRerank: Handler<'createRerank'> = async ({ deps, principal, requestId, body }) => ({
  status: 200,
  body: await rerank(
    deps,
    requirePrincipal(principal),
    requestId,
    body!,
    UNCANCELLABLE,
    deps.chainHooks(requestId, deps.catalog.find(body!.model)?.slug ?? body!.model),
  ),
});

import { createEmbeddings as embed } from '../../domain/retrieval/embeddings.js';
import { abortWhenClientLeaves } from '../../http/client-abort.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const createEmbeddings: Handler<'createEmbeddings'> = async ({ deps, principal, requestId, body, req, res }) => ({
  status: 200,
  body: await embed(deps, requirePrincipal(principal), requestId, body!, abortWhenClientLeaves(req, res), deps.chainHooks(requestId, deps.catalog.find(body!.model)?.slug ?? body!.model)),
});

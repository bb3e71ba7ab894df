import { createEmbeddings as embed } from '../../domain/retrieval/embeddings.js';
import type { Handler } from '../../http/operation-types.js';
import { UNCANCELLABLE } from '../../lib/cancel-signal.js';
import { requirePrincipal } from '../require-principal.js';

/** Answers whose vectors would be more JSON than this are written one vector at a time (Reply `inPieces`). */
const IN_PIECES_ABOVE_BYTES = 1024 * 1024;
/** A float as JSON text: sign, digits, exponent, comma. */
const BYTES_PER_FLOAT = 20;

export const createEmbeddings: Handler<'createEmbeddings'> = async ({ deps, principal, requestId, body }) => {
  const hooks = deps.chainHooks(requestId, deps.catalog.find(body!.model)?.slug ?? body!.model);
  const result = await embed(deps, requirePrincipal(principal), requestId, body!, UNCANCELLABLE, hooks);
  const bytes = result.data.reduce(
    (sum, { embedding }) =>
      sum + (typeof embedding === 'string' ? embedding.length : embedding.length * BYTES_PER_FLOAT),
    0,
  );
  return { status: 200, body: result, ...(bytes > IN_PIECES_ABOVE_BYTES ? { inPieces: 'data' } : {}) };
};

/**
 * Which catalog row a request's `model` names, and whether this endpoint may serve it (SPEC 2.5, 4.1 rule 1,
 * 7.2). Slugs and aliases both resolve to the native row, so everything downstream (pricing, routing, usage)
 * sees one slug per model.
 */
import { ApiError } from '../../errors/api-error.js';
import type { CatalogFileEntry } from './catalog-file.js';
import type { ModelCatalog } from './model-catalog.js';

type MediaKind = CatalogFileEntry['media_kind'];
export type RetrievalKind = 'embedding' | 'rerank';

/** The endpoint that serves each kind (SPEC 4.1, 4.2, 4.4), for hints that tell the caller where to go. */
const ENDPOINT_FOR_KIND: Record<MediaKind, string> = {
  text: 'POST /v1/compat/chat/completions',
  image: 'POST /v1/compat/images/generations or POST /v1/llm/images/jobs',
  video: 'POST /v1/llm/videos/jobs',
  music: 'POST /v1/llm/music/jobs',
  audio: 'POST /v1/llm/audio/jobs',
  embedding: 'POST /v1/compat/embeddings',
  rerank: 'POST /v1/compat/rerank',
};

/** "an embedding model", "a rerank model". */
function kindPhrase(kind: MediaKind): string {
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} model`;
}

function hintFor(entry: CatalogFileEntry): string {
  return `${entry.slug} is ${kindPhrase(entry.media_kind)}; use ${ENDPOINT_FOR_KIND[entry.media_kind]}`;
}

/**
 * SPEC 2.5: routing variants (`:batch`, `:free`, `:online`, …) cannot be called. When the part before the
 * colon is a model we know, say so instead of a bare "not found".
 */
function notFound(catalog: ModelCatalog, model: string): ApiError {
  const colon = model.lastIndexOf(':');
  const base = colon > 0 ? catalog.find(model.slice(0, colon)) : undefined;
  const meta =
    base === undefined
      ? { slug: model }
      : { slug: model, hint: `routing variants cannot be called; send "${base.slug}"` };
  return new ApiError('model_not_found', `model: "${model}" is not in the catalog`, { param: 'model', meta });
}

/**
 * A name that is not a catalog row: an external-tier id answers its availability code (SPEC 2.5: what
 * `/v1/compat/models` lists is never `model_not_found`, issue 24 item 3), anything else `model_not_found`.
 */
function notARow(catalog: ModelCatalog, model: string): ApiError {
  const external = catalog.externalVerdict(model);
  if (external === undefined) return notFound(catalog, model);
  return new ApiError(external.code, `model: ${model} is unavailable: ${external.reason}`, {
    meta: { slug: model, hint: external.reason },
  });
}

/**
 * SPEC 2.5 `available: false`: the row exists but no route serves it; the deterministic 400 (SPEC 7.3). The one
 * rule for every kind: chat and retrieval check it here, media when the route table gives their chain.
 */
export function assertAvailable(entry: CatalogFileEntry): CatalogFileEntry {
  if (entry.available) return entry;
  const reason = entry.unavailable_reason ?? 'No provider currently serves this model.';
  throw new ApiError('no_provider_available', `model: ${entry.slug} is unavailable: ${reason}`, {
    meta: { slug: entry.slug, hint: reason },
  });
}

/**
 * The row a chat request runs on. `model` omitted → the catalog's `default_model`; empty → `model_required`
 * (DESIGN.md 3). Only text rows chat: image slugs answer `model_is_image`, embedding and rerank slugs
 * `model_is_retrieval` (SPEC 4.1 rule 1), other media `model_not_found` with a hint naming their endpoint.
 */
export function resolveChatModel(catalog: ModelCatalog, model: string | undefined): CatalogFileEntry {
  if (model === '')
    throw new ApiError('model_required', 'model: must not be empty; omit it to use the default model', {
      param: 'model',
    });
  const slug = model ?? catalog.defaultModel;
  const entry = catalog.find(slug);
  if (entry === undefined) throw notARow(catalog, slug);
  const meta = { slug: entry.slug, hint: hintFor(entry) };
  switch (entry.media_kind) {
    case 'text':
      return assertAvailable(entry);
    case 'image':
      throw new ApiError('model_is_image', `model: ${entry.slug} is an image model, not a chat model`, {
        param: 'model',
        meta,
      });
    case 'embedding':
    case 'rerank':
      throw new ApiError(
        'model_is_retrieval',
        `model: ${entry.slug} is ${kindPhrase(entry.media_kind)}, not a chat model`,
        { param: 'model', meta },
      );
    default:
      throw new ApiError(
        'model_not_found',
        `model: ${entry.slug} is ${kindPhrase(entry.media_kind)}, not a chat model`,
        { param: 'model', meta },
      );
  }
}

/**
 * The row an embeddings or rerank request runs on. `model` is required on these endpoints (DESIGN.md 3);
 * a row of any other kind is `model_not_found` (SPEC 4.1 rule 1, 7.2), with a hint naming its endpoint.
 */
export function resolveRetrievalModel(
  catalog: ModelCatalog,
  model: string | undefined,
  kind: RetrievalKind,
): CatalogFileEntry {
  if (model === undefined || model === '')
    throw new ApiError('model_required', `model: required; send ${kindPhrase(kind)} slug`, { param: 'model' });
  const entry = catalog.find(model);
  if (entry === undefined) throw notARow(catalog, model);
  if (entry.media_kind !== kind) {
    throw new ApiError('model_not_found', `model: ${entry.slug} is not ${kindPhrase(kind)}`, {
      param: 'model',
      meta: { slug: entry.slug, hint: hintFor(entry) },
    });
  }
  return assertAvailable(entry);
}

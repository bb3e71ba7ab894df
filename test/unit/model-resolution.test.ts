import { describe, expect, it } from 'vitest';
import { loadCatalogFile } from '../../src/composition/config-files.js';
import { loadContract } from '../../src/composition/index.js';
import { ModelCatalog } from '../../src/domain/catalog/model-catalog.js';
import { resolveChatModel, resolveRetrievalModel } from '../../src/domain/catalog/model-resolution.js';
import { ApiError, type ErrorMeta } from '../../src/errors/api-error.js';
import type { ErrorCode } from '../../src/errors/catalog.js';
import { PROJECT_ROOT } from '../../src/lib/project-root.js';
import { catalogRow } from '../setup/catalog-rows.js';

const catalog = new ModelCatalog(
  loadCatalogFile(`${PROJECT_ROOT}config/catalog.json`, loadContract().components?.schemas ?? {}),
);

function thrown(run: () => unknown): ApiError {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected an ApiError');
}

function expectError(run: () => unknown, code: ErrorCode, meta?: ErrorMeta): ApiError {
  const error = thrown(run);
  expect(error.code).toBe(code);
  if (meta !== undefined) expect(error.meta).toEqual(meta);
  return error;
}

describe('resolveChatModel', () => {
  it('uses the catalog default_model when model is omitted (SPEC 2.5)', () => {
    expect(resolveChatModel(catalog, undefined).slug).toBe(catalog.defaultModel);
  });

  it('answers model_required for an empty model (DESIGN.md 3)', () => {
    expectError(() => resolveChatModel(catalog, ''), 'model_required');
  });

  it('resolves a slug and every alias to the native row (SPEC 2.5)', () => {
    expect(resolveChatModel(catalog, 'gpt-4o').slug).toBe('gpt-4o');
    expect(resolveChatModel(catalog, 'openai/gpt-4o').slug).toBe('gpt-4o');
    expect(resolveChatModel(catalog, 'gpt-4o-2024-11-20').slug).toBe('gpt-4o');
    expect(resolveChatModel(catalog, 'gpt-5.2').slug).toBe('gpt-5-2');
  });

  it('answers model_not_found with meta.slug for an unknown slug', () => {
    const error = expectError(() => resolveChatModel(catalog, 'no-such-model'), 'model_not_found', {
      slug: 'no-such-model',
    });
    expect(error.status).toBe(400);
  });

  it('names the base model of a routing variant, which cannot be called (SPEC 2.5)', () => {
    expectError(() => resolveChatModel(catalog, 'gpt-4o:free'), 'model_not_found', {
      slug: 'gpt-4o:free',
      hint: 'routing variants cannot be called; send "gpt-4o"',
    });
  });

  it('answers model_is_image for an image slug', () => {
    expectError(() => resolveChatModel(catalog, 'imgG-1'), 'model_is_image', {
      slug: 'imgG-1',
      hint: 'imgG-1 is an image model; use POST /v1/compat/images/generations or POST /v1/llm/images/jobs',
    });
  });

  it('answers model_is_retrieval for embedding and rerank slugs (SPEC 4.1 rule 1)', () => {
    expectError(() => resolveChatModel(catalog, 'text-embedding-3-small'), 'model_is_retrieval', {
      slug: 'text-embedding-3-small',
      hint: 'text-embedding-3-small is an embedding model; use POST /v1/compat/embeddings',
    });
    expectError(() => resolveChatModel(catalog, 'baai/bge-reranker-v2-m3'), 'model_is_retrieval', {
      slug: 'bge-reranker-v2-m3',
      hint: 'bge-reranker-v2-m3 is a rerank model; use POST /v1/compat/rerank',
    });
  });

  it.each([
    ['luma-ray-3', 'luma-ray-3 is a video model; use POST /v1/llm/videos/jobs'],
    ['suno-v5', 'suno-v5 is a music model; use POST /v1/llm/music/jobs'],
    ['tts-1', 'tts-1 is an audio model; use POST /v1/llm/audio/jobs'],
  ])('answers model_not_found for %s with a hint naming its endpoint', (slug, hint) => {
    expectError(() => resolveChatModel(catalog, slug), 'model_not_found', { slug, hint });
  });

  it('answers no_provider_available for an unavailable row, with its reason as the hint', () => {
    const meta = { slug: 'o1', hint: 'Retired upstream; use o3 instead.' };
    expectError(() => resolveChatModel(catalog, 'o1'), 'no_provider_available', meta);
    expectError(() => resolveChatModel(catalog, 'openai/o1'), 'no_provider_available', meta);
  });

  it('reports the kind before availability (an unavailable image row is still model_is_image)', () => {
    expectError(() => resolveChatModel(catalog, 'recraft-v2'), 'model_is_image');
  });

  it('gives a generic hint when an unavailable row has no reason', () => {
    const small = new ModelCatalog({
      default_model: 'up',
      external_models: [],
      models: [
        catalogRow({ slug: 'up', media_kind: 'text' }),
        catalogRow({ slug: 'down', media_kind: 'text', available: false, unavailable_reason: null }),
      ],
    });
    expectError(() => resolveChatModel(small, 'down'), 'no_provider_available', {
      slug: 'down',
      hint: 'No provider currently serves this model.',
    });
  });
});

describe('resolveRetrievalModel', () => {
  it('answers model_required when model is missing or empty (DESIGN.md 3)', () => {
    expectError(() => resolveRetrievalModel(catalog, undefined, 'embedding'), 'model_required');
    expectError(() => resolveRetrievalModel(catalog, '', 'rerank'), 'model_required');
  });

  it('resolves embedding and rerank slugs and aliases to the native row', () => {
    expect(resolveRetrievalModel(catalog, 'text-embedding-3-large', 'embedding').slug).toBe('text-embedding-3-large');
    expect(resolveRetrievalModel(catalog, 'openai/text-embedding-3-large', 'embedding').slug).toBe(
      'text-embedding-3-large',
    );
    expect(resolveRetrievalModel(catalog, 'alpha-embedding-001', 'embedding').slug).toBe('alpha-embedding-001');
    expect(resolveRetrievalModel(catalog, 'qwen/qwen3-rerank', 'rerank').slug).toBe('qwen3-rerank');
  });

  it('answers model_not_found for the other retrieval kind, naming the right endpoint (SPEC 4.1 rule 1)', () => {
    expectError(() => resolveRetrievalModel(catalog, 'qwen3-rerank', 'embedding'), 'model_not_found', {
      slug: 'qwen3-rerank',
      hint: 'qwen3-rerank is a rerank model; use POST /v1/compat/rerank',
    });
    expectError(() => resolveRetrievalModel(catalog, 'text-embedding-3-small', 'rerank'), 'model_not_found', {
      slug: 'text-embedding-3-small',
      hint: 'text-embedding-3-small is an embedding model; use POST /v1/compat/embeddings',
    });
  });

  it('answers model_not_found for a chat model, pointing at chat completions', () => {
    expectError(() => resolveRetrievalModel(catalog, 'gpt-4o', 'embedding'), 'model_not_found', {
      slug: 'gpt-4o',
      hint: 'gpt-4o is a text model; use POST /v1/compat/chat/completions',
    });
  });

  it('answers model_not_found with meta.slug for an unknown slug', () => {
    expectError(() => resolveRetrievalModel(catalog, 'text-embedding-4', 'embedding'), 'model_not_found', {
      slug: 'text-embedding-4',
    });
  });

  it('answers no_provider_available for an unavailable retrieval row', () => {
    const small = new ModelCatalog({
      default_model: 'chat',
      external_models: [],
      models: [
        catalogRow({ slug: 'chat', media_kind: 'text' }),
        catalogRow({ slug: 'emb', media_kind: 'embedding', available: false, unavailable_reason: 'Paused.' }),
      ],
    });
    expectError(() => resolveRetrievalModel(small, 'emb', 'embedding'), 'no_provider_available', {
      slug: 'emb',
      hint: 'Paused.',
    });
  });
});

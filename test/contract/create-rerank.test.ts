import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens, truncateToTokens } from '../../src/domain/text/token-counting.js';
import { expectCompatError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const MODEL = 'bge-reranker-v2-m3-pro';

const rerank = (key: string | undefined, body: unknown, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'POST', '/v1/compat/rerank', { ...(key === undefined ? {} : { key }), body, ...options });

const micros = (usd: number) => BigInt(Math.round(usd * 1e6));

const query = 'how does the ledger settle a hold';
const documents = [
  'Apple pie with cinnamon.',
  'The ledger settles a hold by posting the cost and releasing the rest of the hold.',
  'Holds are placed before a call; the ledger settles them after.',
  'Weather in Oslo is cold in winter.',
  'The gateway routes a request to the cheapest upstream.',
];

/** Query once per document plus every document (SPEC 4.1 rule 3, as a cross-encoder counts). */
const promptTokens = (q: string, docs: string[]) => docs.reduce((sum, d) => sum + countTokens(q) + countTokens(d), 0);

describe('POST /v1/compat/rerank', () => {
  it('409 idempotency_conflict for a key reused with another body; the same body is replayed; 400 for a malformed key', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    await expectIdempotencyContract(
      (body, key) => rerank(apiKey, body, { headers: { 'idempotency-key': key } }),
      { first: { model: MODEL, query, documents }, other: { model: MODEL, query: 'something else', documents } },
      'compat',
    );
  });

  it('200: every document scored, sorted by relevance_score highest first, no documents echoed by default', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await rerank(apiKey, { model: MODEL, query, documents });
    expect(response.status, response.text).toBe(200);
    const { results, model } = response.body;
    expect(model).toBe(MODEL);
    expect(results).toHaveLength(documents.length);
    expect(results.map((r: { index: number }) => r.index).sort()).toEqual([0, 1, 2, 3, 4]);
    const scores = results.map((r: { relevance_score: number }) => r.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    for (const result of results) {
      expect(Object.keys(result).sort()).toEqual(['index', 'relevance_score']);
      expect(result.relevance_score).toBeGreaterThanOrEqual(0);
      expect(result.relevance_score).toBeLessThan(1);
    }
    // The two documents about ledgers and holds lead; the unrelated ones score 0.
    expect(
      results
        .slice(0, 2)
        .map((r: { index: number }) => r.index)
        .sort(),
    ).toEqual([1, 2]);
    expect(scores[0]).toBeGreaterThan(0);
    expect(results.find((r: { index: number }) => r.index === 0).relevance_score).toBe(0);
  });

  it('top_n keeps the best n, in the same order as the full ranking', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const full = await rerank(apiKey, { model: MODEL, query, documents });
    const top = await rerank(apiKey, { model: MODEL, query, documents, top_n: 2 });
    expect(top.status, top.text).toBe(200);
    expect(top.body.results).toEqual(full.body.results.slice(0, 2));
    const more = await rerank(apiKey, { model: MODEL, query, documents, top_n: 50 });
    expect(more.body.results).toEqual(full.body.results);
  });

  it('return_documents echoes each result’s own text', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await rerank(apiKey, { model: MODEL, query, documents, return_documents: true, top_n: 3 });
    expect(response.status, response.text).toBe(200);
    expect(response.body.results).toHaveLength(3);
    for (const result of response.body.results) expect(result.document).toEqual({ text: documents[result.index] });
    const without = await rerank(apiKey, { model: MODEL, query, documents, return_documents: false });
    expect(without.body.results.every((r: object) => !('document' in r))).toBe(true);
  });

  it('usage: query + documents tokens as the model counts them; cost = the ledger charge; in the usage log', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const longDocs = documents.map((d) => `${d} `.repeat(40));
    const before = await h.deps.ledger.postedSpend(accountId);
    const response = await rerank(apiKey, { model: MODEL, query, documents: longDocs, top_n: 1 });
    expect(response.status, response.text).toBe(200);
    const tokens = promptTokens(query, longDocs);
    expect(response.body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens, cost: expect.any(Number) });
    const posted = (await h.deps.ledger.postedSpend(accountId)) - before;
    expect(posted).toBeGreaterThan(0n);
    expect(micros(response.body.usage.cost)).toBe(posted);
    expect(posted).toBe(BigInt(Math.round(tokens * h.deps.catalog.find(MODEL)!.retail_input_usd_per_mtok!)));
    const requests = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: apiKey })).requests;
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      request_id: response.headers.get('x-request-id'),
      key_id: keyId,
      model: MODEL,
      kind: 'rerank',
      prompt_tokens: tokens,
      completion_tokens: 0,
      cost_usd: response.body.usage.cost,
    });
  });

  it('the answer carries id (= X-Request-ID) and meta.billed_units.input_tokens (= usage.prompt_tokens), as Cohere clients read', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await rerank(apiKey, { model: MODEL, query, documents });
    expect(response.status, response.text).toBe(200);
    expect(response.body.id).toBe(response.headers.get('x-request-id'));
    expect(response.body.meta).toEqual({ billed_units: { input_tokens: response.body.usage.prompt_tokens } });
  });

  it('documents as {text} objects (Cohere v1, Jina), mixed with strings, extra fields ignored: ranked and billed like strings', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const asStrings = await rerank(apiKey, { model: MODEL, query, documents, return_documents: true });
    const asObjects = await rerank(apiKey, {
      model: MODEL,
      query,
      documents: documents.map((text, i) => (i % 2 === 0 ? { text, title: `doc ${i}` } : text)),
      return_documents: true,
    });
    expect(asObjects.status, asObjects.text).toBe(200);
    expect(asObjects.body.results).toEqual(asStrings.body.results);
    expect(asObjects.body.usage).toEqual(asStrings.body.usage);
    expectCompatError(
      await rerank(apiKey, { model: MODEL, query, documents: [{ title: 'no text' }] }),
      400,
      'invalid_request',
    );
  });

  it('max_tokens_per_doc: each document cut before scoring and billing; return_documents echoes the whole text', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const longDocs = documents.map((d) => `${d} `.repeat(40));
    const response = await rerank(apiKey, {
      model: MODEL,
      query,
      documents: longDocs,
      max_tokens_per_doc: 8,
      return_documents: true,
    });
    expect(response.status, response.text).toBe(200);
    const cut = longDocs.map((d) => truncateToTokens(d, 8));
    expect(response.body.usage.prompt_tokens).toBe(promptTokens(query, cut));
    expect(response.body.usage.prompt_tokens).toBeLessThan(promptTokens(query, longDocs));
    for (const result of response.body.results) expect(result.document.text).toBe(longDocs[result.index]);
    expectCompatError(
      await rerank(apiKey, { model: MODEL, query, documents, max_tokens_per_doc: 0 }),
      400,
      'invalid_request',
    );
  });

  it('a blank document beside real ones is scored (0)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await rerank(apiKey, { model: 'qwen3-rerank', query: 'ledger', documents: ['', 'the ledger'] });
    expect(response.status, response.text).toBe(200);
    expect(response.body.results.map((r: { index: number }) => r.index)).toEqual([1, 0]);
    expect(response.body.results[1].relevance_score).toBe(0);
  });

  const cases: [string, string, Record<string, unknown>][] = [
    ['query empty', 'input_required', { model: MODEL, query: '', documents }],
    ['query whitespace only', 'input_required', { model: MODEL, query: '   ', documents }],
    ['query missing', 'input_required', { model: MODEL, documents }],
    ['documents empty', 'input_required', { model: MODEL, query, documents: [] }],
    ['documents all blank', 'input_required', { model: MODEL, query, documents: ['', '  '] }],
    ['documents missing', 'input_required', { model: MODEL, query }],
    ['model missing', 'model_required', { query, documents }],
    ['an embedding model', 'model_not_found', { model: 'text-embedding-3-small', query, documents }],
    ['a chat model', 'model_not_found', { model: 'gpt-5-mini', query, documents }],
    ['an unknown model', 'model_not_found', { model: 'no-such-reranker', query, documents }],
    ['top_n 0', 'invalid_request', { model: MODEL, query, documents, top_n: 0 }],
    ['an unknown field', 'invalid_request', { model: MODEL, query, documents, rank_fields: ['text'] }],
  ];

  it.each(cases)('400: %s → %s; nothing charged', async (_name, code, body) => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await rerank(apiKey, body);
    expectCompatError(response, 400, code);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it('400 over the model’s document count (bce-reranker-base-v1 takes 500)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await rerank(apiKey, {
      model: 'bce-reranker-base-v1',
      query: 'q',
      documents: Array.from({ length: 501 }, (_, i) => `doc ${i}`),
    });
    expectCompatError(response, 400, 'invalid_request');
    expect(response.body.error.meta.fields[0]).toMatchObject({ type: 'maxItems', loc: ['body', 'documents'] });
  });

  // Regression guards: a query or document list that is too long is not a missing one (SPEC 7.2 input_required).
  it('over 1000 documents answers invalid_request (not input_required)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await rerank(apiKey, {
      model: 'bge-reranker-v2-m3',
      query: 'q',
      documents: Array.from({ length: 1001 }, (_, i) => `doc ${i}`),
    });
    expectCompatError(response, 400, 'invalid_request');
  });

  it('a query over 32768 characters answers invalid_request (not input_required)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await rerank(apiKey, { model: MODEL, query: 'q'.repeat(32_769), documents });
    expectCompatError(response, 400, 'invalid_request');
  });

  it('over-limit query and document count are refused with 400 either way, nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const many = await rerank(apiKey, {
      model: 'bge-reranker-v2-m3',
      query: 'q',
      documents: Array.from({ length: 1001 }, (_, i) => `doc ${i}`),
    });
    expect(many.status).toBe(400);
    expect(many.body.error.meta.fields[0]).toMatchObject({ type: 'maxItems', loc: ['body', 'documents'] });
    const long = await rerank(apiKey, { model: MODEL, query: 'q'.repeat(32_769), documents });
    expect(long.status).toBe(400);
    expect(long.body.error.meta.fields[0]).toMatchObject({ type: 'maxLength', loc: ['body', 'query'] });
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it('402 insufficient_balance with $0: nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const response = await rerank(apiKey, { model: MODEL, query, documents: documents.map((d) => d.repeat(20)) });
    expectCompatError(response, 402, 'insufficient_balance');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it('401 without a key and with an unknown key in either header; X-API-Key works', async () => {
    expectCompatError(await rerank(undefined, { model: MODEL, query, documents }), 401, 'authentication_required');
    expectCompatError(
      await rerank(`cgw_${'Z'.repeat(40)}`, { model: MODEL, query, documents }),
      401,
      'invalid_api_key',
    );
    expectCompatError(
      await rerank(`cgw_${'Z'.repeat(40)}`, { model: MODEL, query, documents }, { keyHeader: 'x-api-key' }),
      401,
      'invalid_api_key',
    );
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expect((await rerank(apiKey, { model: MODEL, query, documents }, { keyHeader: 'x-api-key' })).status).toBe(200);
  });

  it('415 for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(
      await rerank(apiKey, undefined, { rawBody: 'query=x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });
});

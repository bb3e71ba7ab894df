/**
 * SPEC 2.1-2.4, 4.1 through real upstream wire formats: embeddings via an OpenAI-compatible fake (dimensions
 * forwarded, base64 built by the gateway from the float vectors, usage from the upstream, order by `index`),
 * rerank via a Cohere-style and a text-embeddings-inference fake (sorted, top_n, return_documents), failover
 * from a 5xx upstream to the next, and failed calls that cost nothing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NO_DISCOUNTS, retrievalCost } from '../../src/domain/pricing/index.js';
import { countTokens } from '../../src/domain/text/token-counting.js';
import {
  type FakeBehaviour,
  type FakeUpstream,
  fakeEmbedding,
  fakeRelevance,
  fakeTokenCount,
  startFakeUpstream,
} from '../fixtures/fake-upstream.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, type JsonResponse, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import { alertLines, expectNothingBilled, micros, money } from './gateway-helpers.js';

const names = ['emb1', 'emb2', 'cohere1', 'cohere2', 'tei'] as const;
type Name = (typeof names)[number];
const fakes = {} as Record<Name, FakeUpstream>;
const behaviours = {} as Record<Name, FakeBehaviour>;
let arrivals: Name[] = [];
let h: Harness;
let account: { accountId: string; apiKey: string };

beforeAll(async () => {
  for (const name of names) {
    fakes[name] = await startFakeUpstream({
      behaviour: () => {
        arrivals.push(name);
        return behaviours[name];
      },
    });
  }
  const upstreams = writeUpstreamsFile({
    'text-embedding-3-small': [
      { provider: 'emb2', url: fakes.emb2.baseUrl, model: 'vendor-2/te3-small', cost: { input: 0.02 } },
      { provider: 'emb1', url: fakes.emb1.baseUrl, model: 'vendor-1/te3-small', cost: { input: 0.01 } },
    ],
    'qwen3-rerank': [
      {
        provider: 'cohere1',
        type: 'cohere-rerank',
        url: fakes.cohere1.baseUrl,
        model: 'Qwen/Qwen3-Rerank',
        cost: { input: 0.05 },
      },
    ],
    'bge-reranker-v2-m3': [
      {
        provider: 'tei',
        type: 'tei-rerank',
        url: fakes.tei.baseUrl,
        model: 'BAAI/bge-reranker-v2-m3',
        cost: { input: 0.005 },
      },
    ],
    'qwen3-reranker-0.6b': [
      {
        provider: 'tei',
        type: 'tei-rerank',
        url: fakes.tei.baseUrl,
        model: 'Qwen/Qwen3-Reranker-0.6B',
        cost: { input: 0.02 },
      },
      {
        provider: 'cohere2',
        type: 'cohere-rerank',
        url: fakes.cohere2.baseUrl,
        model: 'Qwen/Qwen3-Reranker-0.6B',
        cost: { input: 0.01 },
      },
    ],
  });
  h = await startHarness({ UPSTREAMS_FILE: upstreams });
});

afterAll(async () => {
  await h?.close();
  for (const name of names) await fakes[name]?.close();
  removeUpstreamsFiles();
});

beforeEach(async () => {
  arrivals = [];
  for (const name of names) behaviours[name] = 'ok';
  account = await h.newAccount(undefined, { balanceUsd: 5 });
});

const post = (path: string, body: unknown): Promise<JsonResponse> =>
  call(h.baseUrl, 'POST', path, { key: account.apiKey, body });
const lastBody = (name: Name) => fakes[name].requests.at(-1)!.body as Record<string, unknown>;
const costOf = (slug: string, tokens: number) => retrievalCost(h.deps.catalog.find(slug)!, tokens, NO_DISCOUNTS);

/** One usage record for the call, whose cost is what the ledger posted and what `usage.cost` said. */
async function expectBilledOnce(response: JsonResponse, kind: 'embedding' | 'rerank', provider: string): Promise<void> {
  const after = await money(h, account.accountId);
  expect(after.records).toHaveLength(1);
  expect(after.records[0]).toMatchObject({
    requestId: response.headers.get('x-request-id'),
    kind,
    promptTokens: response.body.usage.prompt_tokens,
  });
  expect(after.records[0]!.metadata).toMatchObject({ provider });
  expect(after.records[0]!.costMicros).toBe(micros(response.body.usage.cost));
  expect(after.postedMicros).toBe(micros(response.body.usage.cost));
  expect(after.heldMicros).toBe(0n);
}

/** Little-endian float32 values of a base64 embedding (SPEC 2.1). */
function decodeBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  return Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
}

describe('embeddings through an OpenAI-compatible upstream', () => {
  const inputs = [
    'The quick brown fox jumps over the lazy dog. '.repeat(40),
    'second input',
    'third one, a little longer than the second',
  ];

  it('forwards dimensions and the upstream model id; base64 is built by the gateway from the float vectors; usage from the upstream', async () => {
    const response = await post('/v1/compat/embeddings', {
      model: 'text-embedding-3-small',
      input: inputs,
      dimensions: 4,
      encoding_format: 'base64',
      user: 'end-user-9',
    });
    expect(response.status, response.text).toBe(200);
    expect(arrivals).toEqual(['emb1']); // the cheaper route, although written second
    const sent = fakes.emb1.requests.at(-1)!;
    expect(sent.path).toBe('/v1/embeddings');
    // The upstream is always asked for floats: the gateway does the base64 itself.
    expect(sent.body).toEqual({
      model: 'vendor-1/te3-small',
      input: inputs,
      dimensions: 4,
      encoding_format: 'float',
      user: 'end-user-9',
    });

    expect(response.body.object).toBe('list');
    expect(response.body.model).toBe('text-embedding-3-small');
    // The fake answers in reverse index order: the gateway puts them back in input order.
    expect(response.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1, 2]);
    response.body.data.forEach((item: { object: string; index: number; embedding: string }) => {
      expect(item.object).toBe('embedding');
      expect(typeof item.embedding).toBe('string');
      expect(decodeBase64(item.embedding)).toEqual(fakeEmbedding(inputs[item.index]!, 4).map(Math.fround));
    });

    const upstreamTokens = inputs.reduce((sum, input) => sum + fakeTokenCount(input), 0);
    expect(response.body.usage).toEqual({
      prompt_tokens: upstreamTokens,
      total_tokens: upstreamTokens,
      cost: Number(costOf('text-embedding-3-small', upstreamTokens)) / 1e6,
    });
    expect(response.body.usage.cost).toBeGreaterThan(0);
    await expectBilledOnce(response, 'embedding', 'emb1');
  });

  it('float is the default encoding: the upstream’s vectors, unchanged, in input order', async () => {
    const response = await post('/v1/compat/embeddings', { model: 'text-embedding-3-small', input: inputs });
    expect(response.status, response.text).toBe(200);
    expect(lastBody('emb1').dimensions).toBeUndefined();
    expect(response.body.data.map((d: { embedding: number[] }) => d.embedding)).toEqual(
      inputs.map((input) => fakeEmbedding(input, 8)),
    );
  });

  it('an upstream without usage → billed on our own count of the input', async () => {
    behaviours.emb1 = 'noUsage';
    const response = await post('/v1/compat/embeddings', { model: 'text-embedding-3-small', input: inputs });
    expect(response.status, response.text).toBe(200);
    const ours = inputs.reduce((sum, input) => sum + countTokens(input), 0);
    expect(response.body.usage.prompt_tokens).toBe(ours);
    await expectBilledOnce(response, 'embedding', 'emb1');
  });

  it('a 5xx upstream fails over to the next route, billed once', async () => {
    behaviours.emb1 = { status: 503 };
    const response = await post('/v1/compat/embeddings', { model: 'text-embedding-3-small', input: 'hello' });
    expect(response.status, response.text).toBe(200);
    expect(arrivals).toEqual(['emb1', 'emb2']);
    expect(lastBody('emb2').model).toBe('vendor-2/te3-small');
    await expectBilledOnce(response, 'embedding', 'emb2');
  });

  it('every upstream failing → 502 upstream_server_error, one alert, nothing billed', async () => {
    Object.assign(behaviours, { emb1: { status: 500 }, emb2: { status: 502 } });
    const before = await money(h, account.accountId);
    const response = await post('/v1/compat/embeddings', { model: 'text-embedding-3-small', input: 'hello' });
    expectCompatError(response, 502, 'upstream_server_error');
    expect(alertLines(h, response.body.request_id)).toHaveLength(1);
    await expectNothingBilled(h, account.accountId, before);
  });
});

describe('rerank through Cohere-style and TEI upstreams', () => {
  const query = 'red apple pie';
  const documents = [
    'banana bread recipe',
    'red apple pie with cinnamon',
    'apple juice',
    'a red car',
    'pie crust and apple slices',
  ];
  /** Every document's expected score, best first (ties by index). */
  const ranked = documents
    .map((text, index) => ({ index, score: fakeRelevance(query, text) }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
  const counted = countTokens(query) * documents.length + documents.reduce((sum, d) => sum + countTokens(d), 0);

  it('Cohere-style: sorted by relevance, top_n, return_documents; the upstream model id is sent', async () => {
    const response = await post('/v1/compat/rerank', {
      model: 'qwen3-rerank',
      query,
      documents,
      top_n: 3,
      return_documents: true,
    });
    expect(response.status, response.text).toBe(200);
    const sent = fakes.cohere1.requests.at(-1)!;
    expect(sent.path).toBe('/v1/rerank');
    expect(sent.body).toMatchObject({ model: 'Qwen/Qwen3-Rerank', query, documents, top_n: 3 });
    expect(response.body.model).toBe('qwen3-rerank');
    expect(response.body.results).toEqual(
      ranked
        .slice(0, 3)
        .map(({ index, score }) => ({ index, relevance_score: score, document: { text: documents[index] } })),
    );
    // Cohere bills search units, so the gateway counts query × documents + documents itself (SPEC 4.1.3).
    expect(response.body.usage).toEqual({
      prompt_tokens: counted,
      total_tokens: counted,
      cost: Number(costOf('qwen3-rerank', counted)) / 1e6,
    });
    await expectBilledOnce(response, 'rerank', 'cohere1');
  });

  it('TEI: every text scored upstream, sorted and cut to top_n by the gateway; no documents unless asked', async () => {
    const response = await post('/v1/compat/rerank', { model: 'bge-reranker-v2-m3', query, documents, top_n: 2 });
    expect(response.status, response.text).toBe(200);
    const sent = fakes.tei.requests.at(-1)!;
    expect(sent.path).toBe('/rerank');
    expect(sent.body).toMatchObject({ query, texts: documents });
    expect(response.body.results).toEqual(
      ranked.slice(0, 2).map(({ index, score }) => ({ index, relevance_score: score })),
    );
    expect(response.body.usage.prompt_tokens).toBe(counted);
    await expectBilledOnce(response, 'rerank', 'tei');
  });

  it('TEI without top_n returns every document, highest first', async () => {
    const response = await post('/v1/compat/rerank', { model: 'bge-reranker-v2-m3', query, documents });
    expect(response.status, response.text).toBe(200);
    expect(response.body.results.map((r: { index: number }) => r.index)).toEqual(ranked.map((r) => r.index));
    const scores = response.body.results.map((r: { relevance_score: number }) => r.relevance_score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });

  it('a 5xx rerank upstream fails over to the second (Cohere-style → TEI), billed once', async () => {
    behaviours.cohere2 = { status: 500 };
    const response = await post('/v1/compat/rerank', {
      model: 'qwen3-reranker-0.6b',
      query,
      documents,
      top_n: 1,
      return_documents: true,
    });
    expect(response.status, response.text).toBe(200);
    expect(arrivals).toEqual(['cohere2', 'tei']);
    expect(response.body.results).toEqual([
      { index: ranked[0]!.index, relevance_score: ranked[0]!.score, document: { text: documents[ranked[0]!.index] } },
    ]);
    await expectBilledOnce(response, 'rerank', 'tei');
  });

  it('every rerank upstream 5xx → 502 upstream_server_error, one alert, nothing billed', async () => {
    Object.assign(behaviours, { cohere2: { status: 500 }, tei: { status: 503 } });
    const before = await money(h, account.accountId);
    const response = await post('/v1/compat/rerank', { model: 'qwen3-reranker-0.6b', query, documents });
    expectCompatError(response, 502, 'upstream_server_error');
    expect(arrivals).toEqual(['cohere2', 'tei']);
    expect(alertLines(h, response.body.request_id)).toHaveLength(1);
    await expectNothingBilled(h, account.accountId, before);
  });
});

import { encode as encodeCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens } from '../../src/domain/text/token-counting.js';
import { expectCompatError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const SMALL = 'text-embedding-3-small';
const LARGE = 'text-embedding-3-large';

const embed = (key: string | undefined, body: unknown, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'POST', '/v1/compat/embeddings', { ...(key === undefined ? {} : { key }), body, ...options });

const micros = (usd: number) => BigInt(Math.round(usd * 1e6));
const norm = (v: number[]) => Math.sqrt(v.reduce((sum, x) => sum + x * x, 0));

/** SPEC 2.1: base64 of little-endian float32 values. */
function decodeBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  expect(bytes.length % 4).toBe(0);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return Array.from({ length: bytes.length / 4 }, (_, i) => view.getFloat32(i * 4, true));
}

/** Retail input rate (already 20 % below vendor) × tokens, half-up to the micro-dollar (SPEC 4.1 rule 3, 8). */
function expectedMicros(slug: string, tokens: number): bigint {
  return BigInt(Math.round(tokens * h.deps.catalog.find(slug)!.retail_input_usd_per_mtok!));
}

describe('POST /v1/compat/embeddings', () => {
  it('409 idempotency_conflict for a key reused with another body; the same body is replayed; 400 for a malformed key', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    await expectIdempotencyContract(
      (body, key) => embed(apiKey, body, { headers: { 'idempotency-key': key } }),
      { first: { model: SMALL, input: 'one' }, other: { model: SMALL, input: 'two' } },
      'compat',
    );
  });

  it('200: one float vector per input, in order with its index, native size; usage and cost = the ledger charge', async () => {
    const { accountId, apiKey, keyId } = await h.newAccount(undefined, { balanceUsd: 10 });
    const inputs = ['The quick brown fox', 'jumps over the lazy dog', 'Съешь же ещё этих мягких французских булок'];
    const response = await embed(apiKey, { model: LARGE, input: inputs });
    expect(response.status, response.text).toBe(200);
    const body = response.body;
    expect(body.object).toBe('list');
    expect(body.model).toBe(LARGE);
    expect(body.data.map((d: { index: number }) => d.index)).toEqual([0, 1, 2]);
    for (const item of body.data) {
      expect(item.object).toBe('embedding');
      expect(item.embedding).toHaveLength(3072);
      expect(norm(item.embedding)).toBeCloseTo(1, 9);
    }
    // Each vector is the one its input gets alone: order is kept.
    for (const [i, text] of inputs.entries()) {
      const alone = await embed(apiKey, { model: LARGE, input: text });
      expect(alone.body.data).toHaveLength(1);
      expect(alone.body.data[0].index).toBe(0);
      expect(alone.body.data[0].embedding).toEqual(body.data[i].embedding);
    }
    expect(body.data[0].embedding).not.toEqual(body.data[1].embedding);

    const tokens = inputs.reduce((sum, text) => sum + countTokens(text), 0);
    expect(body.usage).toEqual({ prompt_tokens: tokens, total_tokens: tokens, cost: expect.any(Number) });
    expect(micros(body.usage.cost)).toBe(expectedMicros(LARGE, tokens));

    const requests = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: apiKey })).requests;
    expect(requests).toHaveLength(4);
    expect(requests[3]).toMatchObject({
      request_id: response.headers.get('x-request-id'),
      key_id: keyId,
      model: LARGE,
      kind: 'embedding',
      prompt_tokens: tokens,
      completion_tokens: 0,
      total_tokens: tokens,
      cost_usd: body.usage.cost,
    });
    const totalCost = requests.reduce((sum: bigint, r: { cost_usd: number }) => sum + micros(r.cost_usd), 0n);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(totalCost);
  });

  it('usage.cost equals exactly what the ledger posted for the call', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const before = await h.deps.ledger.postedSpend(accountId);
    const input = 'gateway ledger tokens '.repeat(500);
    const response = await embed(apiKey, { model: LARGE, input });
    expect(response.status, response.text).toBe(200);
    const posted = (await h.deps.ledger.postedSpend(accountId)) - before;
    expect(posted).toBeGreaterThan(0n);
    expect(micros(response.body.usage.cost)).toBe(posted);
    expect(response.body.usage.prompt_tokens).toBe(countTokens(input));
    expect(posted).toBe(expectedMicros(LARGE, countTokens(input)));
  });

  it('encoding_format base64: little-endian float32 of the same vector the float format gives', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const input = ['hello world', 'another input'];
    const floats = await embed(apiKey, { model: SMALL, input, encoding_format: 'float' });
    const base64 = await embed(apiKey, { model: SMALL, input, encoding_format: 'base64' });
    expect(base64.status, base64.text).toBe(200);
    expect(base64.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    for (const [i, item] of base64.body.data.entries()) {
      expect(typeof item.embedding).toBe('string');
      const decoded = decodeBase64(item.embedding);
      const expected: number[] = floats.body.data[i].embedding;
      expect(decoded).toHaveLength(1536);
      expect(decoded).toEqual(expected.map((v) => Math.fround(v)));
    }
    expect(base64.body.usage).toEqual(floats.body.usage);
  });

  it('dimensions on text-embedding-3-small: vectors of that size, unit length', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await embed(apiKey, { model: SMALL, input: ['a b c', 'd e f'], dimensions: 256 });
    expect(response.status, response.text).toBe(200);
    for (const item of response.body.data) {
      expect(item.embedding).toHaveLength(256);
      expect(norm(item.embedding)).toBeCloseTo(1, 9);
    }
    const b64 = await embed(apiKey, { model: SMALL, input: 'a b c', dimensions: 64, encoding_format: 'base64' });
    expect(decodeBase64(b64.body.data[0].embedding)).toHaveLength(64);
  });

  it('dimensions equal to the native size is accepted, as OpenAI does: the same vectors as omitting it', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const native = await embed(apiKey, { model: SMALL, input: 'a b c', dimensions: 1536 });
    expect(native.status, native.text).toBe(200);
    const omitted = await embed(apiKey, { model: SMALL, input: 'a b c' });
    expect(native.body.data[0].embedding).toEqual(omitted.body.data[0].embedding);
  });

  it('user is passed through (accepted, and kept on the usage record)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await embed(apiKey, { model: SMALL, input: 'hello', user: 'end-user-7' });
    expect(response.status, response.text).toBe(200);
    const [record] = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: apiKey })).requests;
    const full = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/llm/usage/requests/${record.id}`, { key: apiKey }),
    ).request;
    expect(full.metadata).toMatchObject({ user: 'end-user-7' });
  });

  it('X-API-Key is accepted', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await embed(apiKey, { model: SMALL, input: 'hello' }, { keyHeader: 'x-api-key' });
    expect(response.status, response.text).toBe(200);
  });

  const cases: [string, string, Record<string, unknown>][] = [
    [
      'dimensions on text-embedding-ada-002',
      'dimensions_unsupported',
      { model: 'text-embedding-ada-002', input: 'hi', dimensions: 256 },
    ],
    [
      'dimensions on alpha-embedding-001',
      'dimensions_unsupported',
      { model: 'alpha-embedding-001', input: 'hi', dimensions: 256 },
    ],
    ['dimensions above the native size', 'dimensions_unsupported', { model: SMALL, input: 'hi', dimensions: 1537 }],
    ['input an empty string', 'input_required', { model: SMALL, input: '' }],
    ['input an empty list', 'input_required', { model: SMALL, input: [] }],
    ['an empty string in the list', 'input_required', { model: SMALL, input: ['ok', ''] }],
    ['input missing', 'input_required', { model: SMALL }],
    ['model missing', 'model_required', { input: 'hi' }],
    ['model empty', 'model_required', { model: '', input: 'hi' }],
    ['an unknown model', 'model_not_found', { model: 'no-such-embedder', input: 'hi' }],
    ['a chat model', 'model_not_found', { model: 'gpt-5-mini', input: 'hi' }],
    ['a rerank model', 'model_not_found', { model: 'bge-reranker-v2-m3', input: 'hi' }],
    ['an unknown encoding_format', 'invalid_request', { model: SMALL, input: 'hi', encoding_format: 'int8' }],
    ['dimensions 0', 'invalid_request', { model: SMALL, input: 'hi', dimensions: 0 }],
    ['an unknown field', 'invalid_request', { model: SMALL, input: 'hi', truncate: true }],
  ];

  it.each(cases)('400: %s → %s; nothing charged', async (_name, code, body) => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await embed(apiKey, body);
    expectCompatError(response, 400, code);
    expect(response.body.error.type).toBe('invalid_request_error');
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it("token ids (OpenAI's other two input forms): counted as given, embedded as the text they spell", async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const texts = ['the ledger settles holds', 'gateways route requests'];
    const ids = texts.map((text) => encodeCl100k(text));
    const asText = await embed(apiKey, { model: SMALL, input: texts });
    const one = await embed(apiKey, { model: SMALL, input: ids[0] });
    expect(one.status, one.text).toBe(200);
    expect(one.body.data).toHaveLength(1);
    expect(one.body.usage.prompt_tokens).toBe(ids[0]!.length);
    expect(one.body.data[0].embedding).toEqual(asText.body.data[0].embedding);
    const many = await embed(apiKey, { model: SMALL, input: ids });
    expect(many.status, many.text).toBe(200);
    expect(many.body.data.map((d: { index: number }) => d.index)).toEqual([0, 1]);
    expect(many.body.data[1].embedding).toEqual(asText.body.data[1].embedding);
    expect(many.body.usage.prompt_tokens).toBe(ids[0]!.length + ids[1]!.length);
  });

  it("token ids: outside the model's vocabulary, on a text-only model, or mixed with text → 400, nothing charged", async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const outside = await embed(apiKey, {
      model: SMALL,
      input: [
        [1, 2],
        [3, 100_277],
      ],
    });
    expectCompatError(outside, 400, 'invalid_request');
    expect(outside.body.error.param).toBe('input[1][1]');
    const textOnly = await embed(apiKey, { model: 'alpha-embedding-001', input: [1, 2, 3] });
    expectCompatError(textOnly, 400, 'invalid_request');
    expect(textOnly.body.error.param).toBe('input[0]');
    expectCompatError(await embed(apiKey, { model: SMALL, input: ['text', 1] }), 400, 'invalid_request');
    expectCompatError(await embed(apiKey, { model: SMALL, input: [-1] }), 400, 'invalid_request');
    expectCompatError(await embed(apiKey, { model: SMALL, input: [[]] }), 400, 'invalid_request');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it('400 for 2049 inputs (at most 2048); 2048 are accepted', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const over = await embed(apiKey, { model: SMALL, input: Array.from({ length: 2049 }, (_, i) => `item ${i}`) });
    expect(over.status, over.text).toBe(400);
    expect(
      over.body.error.meta.fields.some(
        (f: { type: string; loc: unknown[] }) => f.type === 'maxItems' && f.loc.join('.') === 'body.input',
      ),
    ).toBe(true);
    const at = await embed(apiKey, {
      model: SMALL,
      input: Array.from({ length: 2048 }, (_, i) => `item ${i}`),
      dimensions: 8,
    });
    expect(at.status, at.text).toBe(200);
    expect(at.body.data).toHaveLength(2048);
    expect(at.body.data[2047].index).toBe(2047);
  });

  // Regression guard: too many inputs is not an empty input (SPEC 7.2 input_required); like the model's own
  // count limit below, it answers invalid_request.
  it('2049 inputs answer invalid_request (not input_required: the input is not empty)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const over = await embed(apiKey, { model: SMALL, input: Array.from({ length: 2049 }, (_, i) => `item ${i}`) });
    expectCompatError(over, 400, 'invalid_request');
  });

  it('400 over the model’s own input count (alpha-embedding-001 takes 250)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await embed(apiKey, {
      model: 'alpha-embedding-001',
      input: Array.from({ length: 251 }, () => 'x'),
    });
    expectCompatError(response, 400, 'invalid_request');
    expect(response.body.error.meta.fields[0]).toMatchObject({ type: 'maxItems', loc: ['body', 'input'] });
  });

  it('400 for an input over the per-input token limit (8192 on text-embedding-3)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await embed(apiKey, { model: SMALL, input: ['ok', 'word '.repeat(9000)] });
    expectCompatError(response, 400, 'invalid_request');
    expect(response.body.error.meta.fields[0].loc).toEqual(['body', 'input', 1]);
  });

  it('402 insufficient_balance with $0: nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount();
    const response = await embed(apiKey, { model: LARGE, input: 'hello '.repeat(200) });
    expectCompatError(response, 402, 'insufficient_balance');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it('401 without a key and with an unknown key in either header', async () => {
    expectCompatError(await embed(undefined, { model: SMALL, input: 'hi' }), 401, 'authentication_required');
    expectCompatError(await embed(`cgw_${'Z'.repeat(40)}`, { model: SMALL, input: 'hi' }), 401, 'invalid_api_key');
    expectCompatError(
      await embed(`cgw_${'Z'.repeat(40)}`, { model: SMALL, input: 'hi' }, { keyHeader: 'x-api-key' }),
      401,
      'invalid_api_key',
    );
  });

  it('415 for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(
      await embed(apiKey, undefined, { rawBody: 'input=hi', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });
});

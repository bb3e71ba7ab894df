/**
 * `Idempotency-Key` on every paid POST (DESIGN.md 3 "Client retries", the contract's IdempotencyKey parameter),
 * against a fake upstream that counts what reaches it: a retry with the same key and body replays the first
 * response byte for byte and is neither sent upstream nor charged; a different body, another operation, a stream
 * or a retry while the first still runs answers 409; a failure keeps nothing; a claim whose owner died is taken
 * over only when its request was not charged.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { type FakeBehaviour, type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { expectCompatError, expectNativeError } from '../setup/envelopes.js';
import { call, type Harness, type JsonResponse, startHarness } from '../setup/harness.js';
import { eventually } from '../setup/polling.js';
import { jobBudgetsWithin } from '../setup/short-holds.js';
import { sleep } from '../setup/time.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import { dataFrames, MESSAGES, money } from './gateway-helpers.js';

const HOLD_TTL_MS = 600;
let fake: FakeUpstream;
let behaviour: FakeBehaviour = 'ok';
let h: Harness;
let account: { accountId: string; apiKey: string };

beforeAll(async () => {
  fake = await startFakeUpstream({ behaviour: () => behaviour });
  const upstreams = writeUpstreamsFile({
    'gpt-5-mini': [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 1 } }],
    'text-embedding-3-small': [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.01 } }],
    'qwen3-rerank': [{ provider: 'rerank', type: 'cohere-rerank', url: fake.baseUrl, cost: { input: 0.05 } }],
  });
  // A short hold TTL is the claim's lease: an abandoned claim can be examined within the test.
  h = await startHarness({
    UPSTREAMS_FILE: upstreams,
    BILLING_HOLD_TTL_MS: String(HOLD_TTL_MS),
    REQUEST_DEADLINE_MS: '500',
    CHAT_JOB_BUDGET_MS: '500',
    ...jobBudgetsWithin(500),
  });
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  removeUpstreamsFiles();
});

beforeEach(async () => {
  behaviour = 'ok';
  account = await h.newAccount(undefined, { balanceUsd: 5 });
});

const post = (path: string, body: unknown, key: string, apiKey = account.apiKey): Promise<JsonResponse> =>
  call(h.baseUrl, 'POST', path, { key: apiKey, body, headers: { 'idempotency-key': key } });

const PAID: [string, string, unknown][] = [
  ['compat chat', '/v1/compat/chat/completions', { model: 'gpt-5-mini', messages: MESSAGES }],
  ['native chat', '/v1/llm/chat/completions', { model: 'gpt-5-mini', messages: MESSAGES }],
  ['Responses', '/v1/responses', { model: 'gpt-5-mini', input: 'Say hello' }],
  ['chat job', '/v1/llm/chat/jobs', { model: 'gpt-5-mini', messages: MESSAGES }],
  ['embeddings', '/v1/compat/embeddings', { model: 'text-embedding-3-small', input: ['to embed'] }],
  ['rerank', '/v1/compat/rerank', { model: 'qwen3-rerank', query: 'trains', documents: ['trains run', 'boats float'] }],
];

describe('a retry with the same key and body', () => {
  it.each(PAID)(
    '%s: replays the first response exactly, uncharged and without calling the upstream',
    async (_name, path, body) => {
      const key = newId('idem');
      const first = await post(path, body, key);
      expect([200, 202]).toContain(first.status);
      const jobId = first.body?.data?.job_id as string | undefined;
      if (jobId !== undefined) {
        await eventually(
          async () => {
            const poll = await call(h.baseUrl, 'GET', `/v1/llm/chat/jobs/${jobId}`, { key: account.apiKey });
            return poll.body.data.status === 'completed' ? true : undefined;
          },
          5_000,
          'the job charged',
        );
      }
      const charged = await money(h, account.accountId);
      const upstreamCalls = fake.requests.length;
      const again = await post(path, { ...(body as object) }, key);
      expect(again.status).toBe(first.status);
      expect(again.text).toBe(first.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(fake.requests).toHaveLength(upstreamCalls);
      const after = await money(h, account.accountId);
      expect(after.postedMicros).toBe(charged.postedMicros);
      expect(after.availableMicros).toBe(charged.availableMicros);
      expect(after.records).toHaveLength(charged.records.length);
      expect(charged.records).toHaveLength(1);
    },
  );

  it('is recognised whatever the key order and whitespace of the body; another account’s same key is its own', async () => {
    const key = newId('idem');
    const first = await call(h.baseUrl, 'POST', '/v1/compat/embeddings', {
      key: account.apiKey,
      rawBody: '{"model":"text-embedding-3-small","input":["a"]}',
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
    });
    const reordered = await call(h.baseUrl, 'POST', '/v1/compat/embeddings', {
      key: account.apiKey,
      rawBody: '{ "input": ["a"],\n  "model": "text-embedding-3-small" }',
      headers: { 'idempotency-key': key, 'content-type': 'application/json' },
    });
    expect(reordered.headers.get('idempotent-replayed')).toBe('true');
    expect(reordered.text).toBe(first.text);
    const other = await h.newAccount(undefined, { balanceUsd: 1 });
    const theirs = await post(
      '/v1/compat/embeddings',
      { model: 'text-embedding-3-small', input: ['a'] },
      key,
      other.apiKey,
    );
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('409 idempotency_conflict', () => {
  it('the same key with a different body, or on another operation, names the first request and says not to retry', async () => {
    const key = newId('idem');
    const first = await post('/v1/compat/embeddings', { model: 'text-embedding-3-small', input: ['one'] }, key);
    const firstId = first.headers.get('x-request-id');
    const different = await post('/v1/compat/embeddings', { model: 'text-embedding-3-small', input: ['two'] }, key);
    expectCompatError(different, 409, 'idempotency_conflict');
    expect(different.body.error.meta).toEqual({ first_request_id: firstId });
    expect(different.headers.get('x-should-retry')).toBe('false');
    const elsewhere = await post('/v1/llm/chat/jobs', { model: 'gpt-5-mini', messages: MESSAGES }, key);
    expectNativeError(elsewhere, 409, 'idempotency_conflict');
    expect(elsewhere.body.data.meta.first_request_id).toBe(firstId);
  });

  it('while the first request still runs: Retry-After and x-should-retry true; then the first answer is replayed', async () => {
    behaviour = { slowFirstByteMs: 300 };
    const key = newId('idem');
    const body = { model: 'gpt-5-mini', messages: MESSAGES };
    const running = post('/v1/compat/chat/completions', body, key);
    await fake.waitForRequest(fake.requests.length);
    const duplicate = await post('/v1/compat/chat/completions', body, key);
    expectCompatError(duplicate, 409, 'idempotency_conflict');
    expect(duplicate.headers.get('retry-after')).toBe('1');
    expect(duplicate.headers.get('x-should-retry')).toBe('true');
    const first = await running;
    expect(first.status).toBe(200);
    const later = await post('/v1/compat/chat/completions', body, key);
    expect(later.text).toBe(first.text);
  });

  it('a stream: it runs once; any reuse of its key answers 409 naming it', async () => {
    const key = newId('idem');
    const body = { model: 'gpt-5-mini', messages: MESSAGES, stream: true };
    const response = await fetch(`${h.baseUrl}/v1/compat/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${account.apiKey}`,
        'content-type': 'application/json',
        'idempotency-key': key,
        'user-agent': 'integration-tests/1',
      },
      body: JSON.stringify(body),
    });
    expect(dataFrames(await response.text()).at(-1)).toBe('[DONE]');
    const firstId = response.headers.get('x-request-id');
    const again = await post('/v1/compat/chat/completions', body, key);
    expectCompatError(again, 409, 'idempotency_conflict');
    expect(again.body.error.meta.first_request_id).toBe(firstId);
  });
});

describe('what a key keeps', () => {
  it('nothing for a failed request or one refused before it ran: the same key runs it again', async () => {
    const key = newId('idem');
    const body = { model: 'gpt-5-mini', messages: MESSAGES };
    const invalid = await post('/v1/compat/chat/completions', { ...body, temperature: 9 }, key);
    expectCompatError(invalid, 400, 'invalid_temperature');
    behaviour = { status: 503 };
    const failed = await post('/v1/compat/chat/completions', body, key);
    expect(failed.status).toBe(502);
    behaviour = 'ok';
    const upstreamCalls = fake.requests.length;
    const succeeded = await post('/v1/compat/chat/completions', body, key);
    expect(succeeded.status).toBe(200);
    expect(succeeded.headers.get('idempotent-replayed')).toBeNull();
    expect(fake.requests).toHaveLength(upstreamCalls + 1);
  });

  it('a claim whose owner died: taken over when its request was never charged, 409 when it was', async () => {
    const body = { model: 'text-embedding-3-small', input: ['orphan'], encoding_format: 'float' };
    const begin = (key: string, requestId: string) =>
      h.deps.idempotency.begin({
        accountId: account.accountId,
        key,
        operationId: 'createEmbeddings',
        params: {},
        body,
        requestId,
        stream: false,
        creates: null,
      });
    const uncharged = newId('idem');
    await begin(uncharged, newId('req')); // a process claimed it, then died before charging
    const charged = newId('idem');
    const chargedRequest = newId('req');
    await begin(charged, chargedRequest); // a process claimed it, charged, then died before answering
    const principal = await h.deps.authenticator.authenticate(account.apiKey);
    await h.deps.billing.settle(await h.deps.billing.reserve(principal, chargedRequest, 1_000n), 500n, {
      model: 'text-embedding-3-small',
      kind: 'embedding',
      endpoint: 'embeddings',
    });
    await sleep(HOLD_TTL_MS + 50);
    const resumed = await post('/v1/compat/embeddings', body, uncharged);
    expect(resumed.status).toBe(200);
    const refused = await post('/v1/compat/embeddings', body, charged);
    expectCompatError(refused, 409, 'idempotency_conflict');
    expect(refused.body.error.meta.first_request_id).toBe(chargedRequest);
    expect(refused.body.error.message).toMatch(/charged/);
  });

  it('a claim whose owner died while creating something that outlives it: never run again, 409 naming what', async () => {
    const body = { size_gb: 10 };
    const key = newId('idem');
    const first = newId('req');
    // A process claimed it for a volume, then died (before or after making the volume: nobody can tell).
    await h.deps.idempotency.begin({
      accountId: account.accountId,
      key,
      operationId: 'createVolume',
      params: {},
      body,
      requestId: first,
      stream: false,
      creates: 'volume',
    });
    await sleep(HOLD_TTL_MS + 50);
    const refused = await call(h.baseUrl, 'POST', '/v1/volumes', {
      key: account.apiKey,
      body,
      headers: { 'idempotency-key': key },
    });
    expectNativeError(refused, 409, 'idempotency_conflict');
    expect(refused.body.data.meta).toMatchObject({ first_request_id: first, creates: 'volume' });
    expect(await h.deps.market.volumes.list(await h.deps.authenticator.authenticate(account.apiKey), 10, 0)).toEqual(
      [],
    );
  });
});

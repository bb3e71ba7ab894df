/**
 * DESIGN.md 3 "Hold = ceiling" (issue: every request is capped by its hold), through every paid surface against a
 * greedy upstream that reports usage far above anything the request could cost: `n > 1`, large `tools` and no
 * `max_tokens`. The upstream must receive an output cap; the hold must cover the prompt (tools included) plus
 * `n` × that cap; the caller pays exactly the hold and not a micro-dollar more; the platform's loss is posted in
 * the ledger, logged and counted. Retrieval counts its input before the hold and can never exceed it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYSTEM_ACCOUNTS } from '../../src/adapters/ledger/index.js';
import { textHoldEstimate } from '../../src/domain/pricing/index.js';
import { estimatePromptTokens } from '../../src/domain/text/token-counting.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { call, type Harness, type JsonResponse, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import { dataFrames, eventually } from './gateway-helpers.js';

const MODEL = 'gpt-5-mini';
const MESSAGES = [{ role: 'user', content: 'Plan a trip with the tools you have.' }];
/** Tool definitions worth a few thousand prompt tokens. */
const TOOLS = Array.from({ length: 12 }, (_, i) => ({
  type: 'function',
  function: {
    name: `tool_${i}`,
    description: `Looks up fact number ${i} about a destination, with every detail a traveller could want. `.repeat(8),
    parameters: {
      type: 'object',
      properties: { place: { type: 'string' }, day: { type: 'integer' } },
      required: ['place'],
    },
  },
}));
const CHAT = { model: MODEL, messages: MESSAGES, n: 3, tools: TOOLS, tool_choice: 'auto' };

let greedy: FakeUpstream;
let reranker: FakeUpstream;
let h: Harness;

beforeAll(async () => {
  greedy = await startFakeUpstream({
    usage: { promptTokens: 9_000_000, completionTokens: 40_000_000, cachedTokens: 12_000_000 },
    embeddingPromptTokens: 80_000_000,
  });
  reranker = await startFakeUpstream();
  const upstreams = writeUpstreamsFile({
    [MODEL]: [
      { provider: 'greedy', url: greedy.baseUrl, model: 'vendor/gpt-5-mini', cost: { input: 0.2, output: 1.6 } },
    ],
    'text-embedding-3-small': [
      { provider: 'greedy', url: greedy.baseUrl, model: 'vendor/te3-small', cost: { input: 0.01 } },
    ],
    'qwen3-rerank': [
      {
        provider: 'reranker',
        type: 'cohere-rerank',
        url: reranker.baseUrl,
        model: 'vendor/rerank',
        cost: { input: 0.05 },
      },
    ],
  });
  h = await startHarness({ UPSTREAMS_FILE: upstreams });
});

afterAll(async () => {
  await h?.close();
  await greedy?.close();
  await reranker?.close();
  removeUpstreamsFiles();
});

async function lossMetric(): Promise<number> {
  const text = await (await fetch(`${h.baseUrl}/metrics`, { headers: { 'user-agent': 'integration-tests/1' } })).text();
  return Number(new RegExp(`^gateway_platform_loss_usd_total\\{model="${MODEL}"\\} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
}

/** The hold's capped charge: posted = the whole hold, the usage line says so, the excess is a posted, logged loss. */
async function expectChargedTheHold(requestId: string, accountId: string, opening: bigint): Promise<bigint> {
  const hold = await eventually(
    async () => {
      const found = await h.deps.ledger.getHold(`hold:${requestId}`);
      return found?.status === 'posted' ? found : undefined;
    },
    5_000,
    `hold of ${requestId} posted`,
  );
  expect(hold.postedMicros).toBe(hold.amountMicros);
  const [line] = (await h.deps.usageLog.list(accountId, {}, { limit: 10, offset: 0 })).filter(
    (l) => l.requestId === requestId,
  );
  expect(line?.costMicros).toBe(hold.amountMicros);
  const loss = await h.deps.ledger.getTransfer(`loss:hold:${requestId}`);
  expect(loss).toMatchObject({ kind: 'loss', accountId: SYSTEM_ACCOUNTS.losses });
  expect(loss!.amountMicros).toBeGreaterThan(0n);
  expect(h.logs.some((l) => l.event === 'platform_loss' && l.requestId === requestId)).toBe(true);
  expect(await h.deps.ledger.getBalance(accountId)).toEqual({
    accountId,
    availableMicros: opening - hold.amountMicros,
    heldMicros: 0n,
  });
  return hold.amountMicros;
}

/** The last chat request the upstream received carried the model's output cap and the client's n. */
function expectCappedUpstreamCall(): void {
  const sent = greedy.requests.at(-1)!.body as Record<string, unknown>;
  const cap = h.deps.catalog.find(MODEL)!.capabilities.max_output_tokens;
  expect(cap).toBeGreaterThan(0);
  expect(sent).toMatchObject({ max_completion_tokens: cap, n: 3, model: 'vendor/gpt-5-mini' });
  expect(sent).not.toHaveProperty('max_tokens');
}

async function newAccount() {
  const account = await h.newAccount(undefined, { balanceUsd: 50 });
  return { ...account, opening: (await h.deps.ledger.getBalance(account.accountId)).availableMicros };
}

const post = (key: string, path: string, body: unknown): Promise<JsonResponse> =>
  call(h.baseUrl, 'POST', path, { key, body });

describe('a greedy upstream cannot make a caller pay more than its hold', () => {
  it('compat chat: the hold covers prompt with tools plus n × the model cap; the caller pays the hold; the loss is posted and counted', async () => {
    const { accountId, apiKey, opening } = await newAccount();
    const before = await lossMetric();
    const response = await post(apiKey, '/v1/compat/chat/completions', CHAT);
    expect(response.status).toBe(200);
    expectCappedUpstreamCall();
    const requestId = response.headers.get('x-request-id')!;
    const entry = h.deps.catalog.find(MODEL)!;
    const principal = await h.deps.authenticator.authenticate(apiKey);
    const expectedHold = textHoldEstimate(
      entry,
      estimatePromptTokens(CHAT),
      entry.capabilities.max_output_tokens! * 3,
      principal.account,
    );
    expect(estimatePromptTokens(CHAT)).toBeGreaterThan(estimatePromptTokens({ messages: MESSAGES }) + 1_000);
    const charged = await expectChargedTheHold(requestId, accountId, opening);
    expect(charged).toBe(expectedHold);
    expect(BigInt(Math.round(response.body.usage.cost * 1e6))).toBe(charged);
    expect(await lossMetric()).toBeGreaterThan(before);
  });

  it('compat and native chat streams: capped upstream call, the hold charged, never more', async () => {
    for (const path of ['/v1/compat/chat/completions', '/v1/llm/chat/completions']) {
      const { accountId, apiKey, opening } = await newAccount();
      const response = await fetch(h.baseUrl + path, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${apiKey}`,
          'content-type': 'application/json',
          'user-agent': 'integration-tests/1',
        },
        body: JSON.stringify({ ...CHAT, stream: true, stream_options: { include_usage: true } }),
      });
      const frames = dataFrames(await response.text());
      expect(frames.at(-1)).toBe('[DONE]');
      expectCappedUpstreamCall();
      const charged = await expectChargedTheHold(response.headers.get('x-request-id')!, accountId, opening);
      const usage = JSON.parse(frames.at(-2)!) as { usage: { cost: number } };
      expect(BigInt(Math.round(usage.usage.cost * 1e6))).toBeLessThanOrEqual(charged); // the shown estimate never above the hold
    }
  });

  it('native chat, Responses and chat jobs: the same ceiling', async () => {
    const native = await newAccount();
    const nativeAnswer = await post(native.apiKey, '/v1/llm/chat/completions', CHAT);
    expect(nativeAnswer.status).toBe(200);
    expectCappedUpstreamCall();
    await expectChargedTheHold(nativeAnswer.headers.get('x-request-id')!, native.accountId, native.opening);

    const responses = await newAccount();
    const answer = await post(responses.apiKey, '/v1/responses', { model: MODEL, input: 'Plan a trip.' });
    expect(answer.status).toBe(200);
    const cap = h.deps.catalog.find(MODEL)!.capabilities.max_output_tokens;
    expect((greedy.requests.at(-1)!.body as Record<string, unknown>).max_completion_tokens).toBe(cap);
    await expectChargedTheHold(answer.headers.get('x-request-id')!, responses.accountId, responses.opening);

    const jobs = await newAccount();
    const kickoff = await post(jobs.apiKey, '/v1/llm/chat/jobs', CHAT);
    expect(kickoff.status).toBe(202);
    const jobId = kickoff.body.data.job_id as string;
    const done = await eventually(
      async () => {
        const poll = await call(h.baseUrl, 'GET', `/v1/llm/chat/jobs/${jobId}`, { key: jobs.apiKey });
        return poll.body.data.status === 'completed' ? poll.body.data : undefined;
      },
      5_000,
      'chat job completed',
    );
    expectCappedUpstreamCall();
    const charged = await expectChargedTheHold(kickoff.headers.get('x-request-id')!, jobs.accountId, jobs.opening);
    expect(BigInt(Math.round(done.cost_usd * 1e6))).toBe(charged);
  });

  it('embeddings: the input is counted before the hold, and a greedy usage report is capped at it', async () => {
    const { accountId, apiKey, opening } = await newAccount();
    const response = await post(apiKey, '/v1/compat/embeddings', {
      model: 'text-embedding-3-small',
      input: ['a', 'few words to embed'],
    });
    expect(response.status).toBe(200);
    const charged = await expectChargedTheHold(response.headers.get('x-request-id')!, accountId, opening);
    expect(BigInt(Math.round(response.body.usage.cost * 1e6))).toBe(charged);
  });

  it('rerank: the query and documents are counted before the hold, and the charge stays within it', async () => {
    const { accountId, apiKey, opening } = await newAccount();
    const documents = Array.from({ length: 40 }, (_, i) => `document ${i} about trains and ferries `.repeat(20));
    const response = await post(apiKey, '/v1/compat/rerank', { model: 'qwen3-rerank', query: 'ferries', documents });
    expect(response.status).toBe(200);
    const requestId = response.headers.get('x-request-id')!;
    const hold = (await h.deps.ledger.getHold(`hold:${requestId}`))!;
    expect(hold.postedMicros).toBeLessThanOrEqual(hold.amountMicros);
    expect(BigInt(Math.round(response.body.usage.cost * 1e6))).toBe(hold.postedMicros);
    expect(await h.deps.ledger.getTransfer(`loss:hold:${requestId}`)).toBeNull();
    expect((await h.deps.ledger.getBalance(accountId)).availableMicros).toBe(opening - hold.postedMicros!);
  });
});

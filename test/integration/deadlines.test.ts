/**
 * SPEC 8 and DESIGN.md 4 through the real app, with short times: one end-to-end deadline per request, shared by
 * every route of its chain (a slow first route uses it up; the next is not tried: 504 upstream_timeout, nothing
 * billed); and a stream that runs past its hold's TTL keeps its hold, so it is settled like any other.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { expectCompatError } from '../setup/envelopes.js';
import { type Harness, startHarness } from '../setup/harness.js';
import { jobBudgetsWithin } from '../setup/short-holds.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import {
  chat,
  expectEndsWithDone,
  expectNothingBilled,
  money,
  moneyWhenSettled,
  streamChat,
} from './gateway-helpers.js';

const HOLD_TTL_MS = 600;
/** The stalling upstream's wait before its first byte: an answer sooner shows the chain did not wait for it. */
const STALL_MS = 5_000;
const DEADLINE_MS = 400;
let slowStream: FakeUpstream;
let stalling: FakeUpstream;
let spare: FakeUpstream;
let h: Harness;

beforeAll(async () => {
  slowStream = await startFakeUpstream({ streamChunks: 8, chunkIntervalMs: 150 });
  stalling = await startFakeUpstream({ behaviour: { slowFirstByteMs: STALL_MS } });
  spare = await startFakeUpstream();
  const upstreams = writeUpstreamsFile({
    'gpt-5-mini': [{ provider: 'slow-stream', url: slowStream.baseUrl, cost: { input: 0.1, output: 1 } }],
    'gpt-4o-mini': [
      { provider: 'stalling', url: stalling.baseUrl, cost: { input: 0.1, output: 0.1 } },
      { provider: 'spare', url: spare.baseUrl, cost: { input: 0.2, output: 0.2 } },
    ],
  });
  h = await startHarness({
    UPSTREAMS_FILE: upstreams,
    BILLING_HOLD_TTL_MS: String(HOLD_TTL_MS),
    REQUEST_DEADLINE_MS: String(DEADLINE_MS),
    CHAT_JOB_BUDGET_MS: String(DEADLINE_MS),
    ...jobBudgetsWithin(DEADLINE_MS),
    HOLD_SWEEP_MS: '50',
  });
});

afterAll(async () => {
  await h?.close();
  for (const fake of [slowStream, stalling, spare]) await fake?.close();
  removeUpstreamsFiles();
});

describe('one deadline per request', () => {
  it('a first route that uses up the deadline ends the chain: 504 upstream_timeout, the next route never asked, nothing billed', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const before = await money(h, accountId);
    const started = Date.now();
    const response = await chat(h, apiKey, { model: 'gpt-4o-mini' });
    expectCompatError(response, 504, 'upstream_timeout');
    // Not a bound on speed (a busy machine may be slow), only that the stall was not waited out.
    expect(Date.now() - started).toBeLessThan(STALL_MS);
    expect(spare.requests).toHaveLength(0);
    await expectNothingBilled(h, accountId, before);
  });
});

describe('a stream that outlives its hold’s TTL', () => {
  it('keeps its hold alive while it streams and is settled on it, not charged late', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const started = Date.now();
    const result = await streamChat(h, apiKey, { stream_options: { include_usage: true } });
    expect(Date.now() - started).toBeGreaterThan(2 * HOLD_TTL_MS);
    expectEndsWithDone(result);
    const requestId = result.headers.get('x-request-id')!;
    const settled = await moneyWhenSettled(h, accountId, 1);
    expect(await h.deps.ledger.getHold(`hold:${requestId}`)).toMatchObject({ status: 'posted' });
    expect(await h.deps.ledger.getTransfer(`late:${requestId}`)).toBeNull();
    expect(settled.records[0]?.transferId).toBe(`hold:${requestId}`);
  });
});

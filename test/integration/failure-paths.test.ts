/**
 * The failure paths of a paid call (issue: each with a test): usage reporting more cached than prompt tokens is
 * clamped and charged; a response that leaves the contract is still sent (and counted) once the call is charged,
 * while tests, which enforce the contract, still fail on it; a chat job whose completed record cannot be written
 * at first is never recorded failed; an unhandled rejection is logged and the process keeps serving. (An error
 * chunk in an open stream is in stream-failures.test.ts.)
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobStore } from '../../src/adapters/job-store/index.js';
import { textCost } from '../../src/domain/pricing/index.js';
import { type FakeBehaviour, type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { micros } from '../setup/money.js';
import { eventually } from '../setup/polling.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import { MESSAGES, streamChat } from './gateway-helpers.js';

const MODEL = 'gpt-5-mini';
let fake: FakeUpstream;
let behaviour: FakeBehaviour = 'ok';
let enforcing: Harness;
let reporting: Harness;

beforeAll(async () => {
  fake = await startFakeUpstream({
    usage: { promptTokens: 11, cachedTokens: 50, completionTokens: 3 },
    behaviour: () => behaviour,
  });
  const upstreams = writeUpstreamsFile({
    [MODEL]: [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 1 }, cachedInputDiscount: true }],
  });
  enforcing = await startHarness({ UPSTREAMS_FILE: upstreams });
  reporting = await startHarness({ UPSTREAMS_FILE: upstreams, VALIDATE_RESPONSES: 'report' });
});

afterAll(async () => {
  await enforcing?.close();
  await reporting?.close();
  await fake?.close();
  removeUpstreamsFiles();
});

const chat = (h: Harness, apiKey: string) =>
  call(h.baseUrl, 'POST', '/v1/compat/chat/completions', { key: apiKey, body: { model: MODEL, messages: MESSAGES } });

describe('usage that reports more cached than prompt tokens', () => {
  it('is clamped (every prompt token cached) and charged, streamed or not, instead of failing after the work was done', async () => {
    behaviour = 'ok';
    const { accountId, apiKey } = await enforcing.newAccount(undefined, { balanceUsd: 1 });
    const entry = enforcing.deps.catalog.find(MODEL)!;
    const principal = await enforcing.deps.authenticator.authenticate(apiKey);
    const expected = textCost(entry, { promptTokens: 11, cachedTokens: 11, completionTokens: 3 }, principal.account, {
      cachedDiscountApplies: true,
    });
    const answer = await chat(enforcing, apiKey);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.usage).toMatchObject({ prompt_tokens: 11, prompt_tokens_details: { cached_tokens: 11 } });
    expect(micros(answer.body.usage.cost)).toBe(expected);
    const streamed = await streamChat(enforcing, apiKey, {});
    expect(streamed.frames.at(-1)).toBe('[DONE]');
    await eventually(
      async () => ((await enforcing.deps.ledger.postedSpend(accountId)) === 2n * expected ? true : undefined),
      15_000,
      'both charged',
    );
  });
});

describe('a charged response that leaves the contract', () => {
  it('is sent as it is, logged and counted with VALIDATE_RESPONSES=report; the charge stands', async () => {
    behaviour = { overrides: { created: 'yesterday' } };
    const { accountId, apiKey } = await reporting.newAccount(undefined, { balanceUsd: 1 });
    const answer = await chat(reporting, apiKey);
    expect(answer.status, answer.text).toBe(200);
    expect(answer.body.created).toBe('yesterday');
    expect(micros(answer.body.usage.cost)).toBe(await reporting.deps.ledger.postedSpend(accountId));
    expect(
      reporting.logs.some(
        (l) => l.event === 'contract_violation' && l.requestId === answer.headers.get('x-request-id'),
      ),
    ).toBe(true);
    const metrics = await (
      await fetch(`${reporting.baseUrl}/metrics`, { headers: { 'user-agent': 'integration-tests/1' } })
    ).text();
    expect(metrics).toMatch(
      /^gateway_contract_violations_total\{method="POST",route="\/v1\/compat\/chat\/completions"\} 1$/m,
    );
  });

  it('fails the request under VALIDATE_RESPONSES=enforce, so a test that meets it fails', async () => {
    behaviour = { overrides: { created: 'yesterday' } };
    const { apiKey } = await enforcing.newAccount(undefined, { balanceUsd: 1 });
    expectCompatError(await chat(enforcing, apiKey), 500, 'internal_error');
  });
});

describe('a chat job whose completed record cannot be written at first', () => {
  it('ends completed with its charge once the store takes the write, and is never recorded failed', async () => {
    behaviour = 'ok';
    const { accountId, apiKey } = await enforcing.newAccount(undefined, { balanceUsd: 1 });
    const store: JobStore = enforcing.deps.jobs;
    const original = store.transition.bind(store);
    const seen: string[] = [];
    let refusals = 2;
    store.transition = async (id, from, patch, nowMs) => {
      seen.push(patch.status ?? '');
      if (patch.status === 'completed' && refusals-- > 0) throw new Error('job store unreachable');
      return original(id, from, patch, nowMs);
    };
    try {
      const kickoff = await call(enforcing.baseUrl, 'POST', '/v1/llm/chat/jobs', {
        key: apiKey,
        body: { model: MODEL, messages: MESSAGES },
      });
      expect(kickoff.status).toBe(202);
      const jobId = kickoff.body.data.job_id as string;
      const done = await eventually(
        async () => {
          const poll = await call(enforcing.baseUrl, 'GET', `/v1/llm/chat/jobs/${jobId}`, { key: apiKey });
          expect(poll.body.data.status).not.toBe('failed');
          return poll.body.data.status === 'completed' ? poll.body.data : undefined;
        },
        5_000,
        'job completed',
      );
      expect(seen).toEqual(['processing', 'completed', 'completed', 'completed']);
      expect(micros(done.cost_usd)).toBe(await enforcing.deps.ledger.postedSpend(accountId));
    } finally {
      store.transition = original;
    }
  });
});

describe('an unhandled promise rejection', () => {
  it('is logged, with its reason, and the process keeps serving', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/unhandled-rejection-server.ts'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const port = await eventually(async () => /"port":(\d+)/.exec(output)?.[1], 10_000, 'the child listening');
      const logged = await eventually(
        async () => output.split('\n').find((line) => line.includes('"event":"unhandled_rejection"')),
        15_000,
        'the log line',
      );
      expect(JSON.parse(logged)).toMatchObject({ level: 50, err: { message: 'a rejection nobody handles' } });
      expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('still serving');
      expect(child.exitCode).toBeNull();
    } finally {
      child.kill('SIGKILL');
    }
  });
});

/**
 * POST /v1/llm/audio/jobs (SPEC 3.1, 4.4) on the embedded sandbox: real WAV and MP3 files, decoded here, charged
 * what the estimate said; bad requests are 400 naming the field with nothing held.
 */
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { untilTerminal } from '../setup/jobs.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MEDIA_POLL_MS: '50' });
});
afterAll(() => h.close());

const JOBS = '/v1/llm/audio/jobs';
const TEXT = 'The quick brown fox jumps over the lazy dog, twice over.';

describe('POST /v1/llm/audio/jobs', () => {
  it('mp3 in a chosen voice decodes as MP3', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'kokoro-82m', input: 'Hello there.', voice: 'bm_george' },
      }),
      202,
    );
    expect(job.inputs).toMatchObject({ voice: 'bm_george', output_format: 'mp3' });
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id);
    const hosted = await fetchHosted(h, done.outputs[0].url);
    const { format } = await parseBuffer(hosted.bytes, { mimeType: 'audio/mpeg' });
    expect([hosted.type, format.codec, done.outputs[0].format]).toEqual([
      'audio/mpeg',
      expect.stringMatching(/Layer 3$/),
      'mp3',
    ]);
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', JOBS, { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const first = { model: 'kokoro-82m', input: 'Hello there.', voice: 'bm_george' };
    const firstAnswer = await expectIdempotencyContract(
      send,
      { first, other: { ...first, input: 'Goodbye for now.' } },
      'native',
      202,
    );
    const done = await untilTerminal(h, JOBS, apiKey, expectNativeOk(firstAnswer, 202).job_id);
    expect(done.status).toBe('completed');
    // One job, charged once: nothing else held, and the balance down by its cost alone.
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: 1_000_000n - usdToMicros(done.cost_usd),
    });
  });

  it('400 invalid_request naming the field, nothing held: an unknown voice, a container the model lacks, one no route delivers, input over max_characters', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const bad = async (body: Record<string, unknown>, field: string) => {
      const response = await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'tts-1', input: TEXT, ...body },
      });
      expectNativeError(response, 400, 'invalid_request');
      expect(response.body.data.meta.fields[0].loc).toEqual(['body', field]);
      return response.body.data.error as string;
    };
    expect(await bad({ voice: 'Rachel' }, 'voice')).toMatch(/alloy/);
    expect(await bad({ output_format: 'flac' }, 'output_format')).toMatch(/mp3, wav, opus/);
    // opus is the model's, but the sandbox delivers wav and mp3 only: the job is refused before it starts.
    expect(await bad({ output_format: 'opus' }, 'output_format')).toMatch(/wav, mp3/);
    expect(await bad({ input: 'x'.repeat(4097) }, 'input')).toMatch(/4096/);
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'imgG-2', input: 'x' } }),
      400,
      'model_not_found',
    );
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ heldMicros: 0n, availableMicros: 1_000_000n });
  });

  it('402 insufficient_balance when the account cannot pay the input', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'tts-1', input: TEXT } }),
      402,
      'insufficient_balance',
    );
  });

  it('401 without a key', async () => {
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { body: { model: 'tts-1', input: TEXT } }),
      401,
      'authentication_required',
    );
  });
});

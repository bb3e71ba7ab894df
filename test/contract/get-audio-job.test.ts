/**
 * GET /v1/llm/audio/jobs/{job_id} (SPEC 2.8, 3.1): a speech job to completion, replayed to every poll, charged
 * once; another account's or an unknown job is 404 job_not_found.
 */
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { untilTerminal } from '../setup/jobs.js';
import { micros } from '../setup/money.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MEDIA_POLL_MS: '50' });
});
afterAll(() => h.close());

const JOBS = '/v1/llm/audio/jobs';
const TEXT = 'The quick brown fox jumps over the lazy dog, twice over.';
const poll = (key: string, jobId: string) => call(h.baseUrl, 'GET', `${JOBS}/${encodeURIComponent(jobId)}`, { key });

describe('GET /v1/llm/audio/jobs/{job_id}', () => {
  it('wav with the stock voice: a decodable WAV as long as the text reads, hosted; charged the estimate once, polled ten times', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const body = { model: 'tts-1', input: TEXT, output_format: 'wav' };
    const estimate = expectNativeOk(await call(h.baseUrl, 'POST', `${JOBS}/estimate`, { key: apiKey, body }));
    const job = expectNativeOk(await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body }), 202);
    expect(job).toMatchObject({
      job_id: expect.stringMatching(/^job_/),
      status: 'processing',
      model: 'tts-1',
      estimated_cost_usd: estimate.discounted_cost_usd,
    });
    expect(job.inputs).toEqual({ model: 'tts-1', voice: 'alloy', output_format: 'wav', characters: TEXT.length });
    expect(job.expires_at * 1000).toBeGreaterThan(Date.now() + 59 * 60_000);
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id);
    expect(done).toMatchObject({
      status: 'completed',
      cost_usd: estimate.discounted_cost_usd,
      usage: { model: 'tts-1', unit: 'character', units: TEXT.length, cost: estimate.discounted_cost_usd },
    });
    expect(done.outputs).toEqual([
      {
        url: expect.stringContaining('/v1/files/'),
        mime_type: 'audio/wav',
        format: 'wav',
        duration_seconds: expect.any(Number),
      },
    ]);
    const hosted = await fetchHosted(h, done.outputs[0].url);
    expect(hosted.type).toBe('audio/wav');
    const { format } = await parseBuffer(hosted.bytes, { mimeType: 'audio/wav' });
    expect(format.container).toBe('WAVE');
    expect(format.duration).toBeCloseTo(TEXT.length / 15, 1);
    for (let i = 0; i < 9; i++) expect(expectNativeOk(await poll(apiKey, job.job_id))).toEqual(done);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(estimate.discounted_cost_usd));
    expect(micros(done.balance_usd)).toBe(1_000_000n - micros(done.cost_usd));
  });

  it('404 job_not_found: another account’s job, an unknown id, an image job id', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 1 });
    const stranger = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, { key: owner.apiKey, body: { model: 'tts-1', input: TEXT } }),
      202,
    );
    expectNativeError(await poll(stranger.apiKey, job.job_id), 404, 'job_not_found');
    expectNativeError(await poll(owner.apiKey, newId('job')), 404, 'job_not_found');
    const image = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/images/jobs', {
        key: owner.apiKey,
        body: { model: 'imgG-4o', prompt: 'x' },
      }),
      202,
    );
    expectNativeError(await poll(owner.apiKey, image.job_id), 404, 'job_not_found');
  });
});

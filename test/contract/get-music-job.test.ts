/**
 * GET /v1/llm/music/jobs/{job_id} (SPEC 2.8, 3.1): two WAV tracks of a two-track model, decoded here, replayed to
 * every poll and charged once; 402 at kickoff; another account's or an unknown job is 404 job_not_found.
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

const JOBS = '/v1/llm/music/jobs';
const poll = (key: string, jobId: string) => call(h.baseUrl, 'GET', `${JOBS}/${encodeURIComponent(jobId)}`, { key });

async function decoded(
  link: string,
): Promise<{ type: string | null; duration: number | undefined; container: string | undefined }> {
  const { type, bytes } = await fetchHosted(h, link);
  const { format } = await parseBuffer(bytes, { mimeType: type ?? undefined });
  return { type, duration: format.duration, container: format.container };
}

describe('GET /v1/llm/music/jobs/{job_id}', () => {
  it('suno-v5 delivers two decodable WAV tracks of the length asked; charged the estimate once', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const body = { model: 'suno-v5', prompt: 'An upbeat song about trains', duration: 31, output_format: 'wav' };
    const estimate = expectNativeOk(await call(h.baseUrl, 'POST', `${JOBS}/estimate`, { key: apiKey, body }));
    const job = expectNativeOk(await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body }), 202);
    expect(job).toMatchObject({
      status: 'processing',
      model: 'suno-v5',
      estimated_cost_usd: estimate.discounted_cost_usd,
      inputs: { duration: 31, tracks: 2, instrumental: false, output_format: 'wav' },
    });
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id);
    expect(done).toMatchObject({
      status: 'completed',
      cost_usd: estimate.discounted_cost_usd,
      usage: { model: 'suno-v5', unit: 'second', units: 62 },
    });
    expect(done.outputs).toHaveLength(2);
    for (const output of done.outputs) {
      expect(output).toMatchObject({ mime_type: 'audio/wav', format: 'wav', duration_seconds: 31 });
      expect(await decoded(output.url)).toEqual({ type: 'audio/wav', duration: 31, container: 'WAVE' });
    }
    for (let i = 0; i < 5; i++) expect(expectNativeOk(await poll(apiKey, job.job_id))).toEqual(done);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(estimate.discounted_cost_usd));
  });

  it('402 insufficient_balance; 404 job_not_found for another account’s or an unknown job; 401 without a key', async () => {
    const broke = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: broke.apiKey, body: { model: 'suno-v5', prompt: 'x' } }),
      402,
      'insufficient_balance',
    );
    const owner = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: owner.apiKey,
        body: { model: 'musicgen-large', prompt: 'Drums', duration: 2 },
      }),
      202,
    );
    expectNativeError(await poll(broke.apiKey, job.job_id), 404, 'job_not_found');
    expectNativeError(await poll(owner.apiKey, newId('job')), 404, 'job_not_found');
    expectNativeError(await call(h.baseUrl, 'GET', `${JOBS}/${job.job_id}`), 401, 'authentication_required');
  });
});

/** GET /v1/llm/topaz/image/jobs/{job_id} (SPEC 2.8, 3.1): replayed once completed, charged once; others' jobs 404. */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { untilTerminal } from '../setup/jobs.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MEDIA_POLL_MS: '50' });
});
afterAll(() => h.close());

const JOBS = '/v1/llm/topaz/image/jobs';

describe('GET /v1/llm/topaz/image/jobs/{job_id}', () => {
  it('a completed restoration (1 credit) is replayed to every poll and charged once; another account’s, an unknown or a video job id is 404', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 1 });
    const stranger = await h.newAccount(undefined, { balanceUsd: 1 });
    const source = (
      await sharp({ create: { width: 64, height: 48, channels: 3, background: { r: 1, g: 2, b: 3 } } })
        .png()
        .toBuffer()
    ).toString('base64');
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: owner.apiKey,
        body: { model: 'topaz-sharpen-standard', image_url: source },
      }),
      202,
    );
    const done = await untilTerminal(h, JOBS, owner.apiKey, job.job_id);
    expect(done).toMatchObject({ status: 'completed', cost_usd: 0.14, outputs: [{ format: 'png' }] });
    for (let i = 0; i < 5; i++)
      expect(expectNativeOk(await call(h.baseUrl, 'GET', `${JOBS}/${job.job_id}`, { key: owner.apiKey }))).toEqual(
        done,
      );
    expect(await h.deps.ledger.postedSpend(owner.accountId)).toBe(140_000n);
    expectNativeError(
      await call(h.baseUrl, 'GET', `${JOBS}/${job.job_id}`, { key: stranger.apiKey }),
      404,
      'job_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'GET', `${JOBS}/${newId('job')}`, { key: owner.apiKey }),
      404,
      'job_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/llm/topaz/video/jobs/${job.job_id}`, { key: owner.apiKey }),
      404,
      'job_not_found',
    );
  });
});

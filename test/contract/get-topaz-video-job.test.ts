/** GET /v1/llm/topaz/video/jobs/{job_id} (SPEC 2.8, 3.1): a MOV restoration served as MOV; others' jobs 404. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderClip } from '../../src/adapters/video-codec/clip-jobs.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { untilTerminal } from '../setup/jobs.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MEDIA_POLL_MS: '50' });
});
afterAll(() => h.close());

const JOBS = '/v1/llm/topaz/video/jobs';

describe('GET /v1/llm/topaz/video/jobs/{job_id}', () => {
  it('a restoration to mov is served under .mov as video/quicktime; another account’s or an unknown job is 404', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 5 });
    const source = Buffer.from(await renderClip({ width: 64, height: 64, frames: 6, fps: 6, rgb: [9, 9, 9] }));
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: owner.apiKey,
        body: {
          model: 'topaz-video-nyx',
          video_url: `data:video/mp4;base64,${source.toString('base64')}`,
          output_format: 'mov',
        },
      }),
      202,
    );
    const done = await untilTerminal(h, JOBS, owner.apiKey, job.job_id, 20_000);
    expect(done.outputs[0]).toMatchObject({
      format: 'mov',
      mime_type: 'video/quicktime',
      url: expect.stringContaining('.mov'),
    });
    expect((await fetchHosted(h, done.outputs[0].url)).type).toBe('video/quicktime');
    const stranger = await h.newAccount();
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
  }, 30_000);
});

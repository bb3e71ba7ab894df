/**
 * POST /v1/llm/topaz/video/jobs (SPEC 4.4, 4.6) on the embedded sandbox: the source clip measured once hosted, the
 * credits of its output frames held and charged on completion; the restored clip probes at the size and length due.
 */
import { ALL_FORMATS, BufferSource, Input } from 'mediabunny';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderClip } from '../../src/adapters/video-codec/clip-jobs.js';
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

const JOBS = '/v1/llm/topaz/video/jobs';

describe('POST /v1/llm/topaz/video/jobs', () => {
  it('a 3 s clip to 1080p: 90 frames of 1920x1080 (186.6 MP) are 8 credits, $1.12, held and charged once; the clip probes 1920x1080, 3 s', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const source = Buffer.from(await renderClip({ width: 160, height: 90, frames: 18, fps: 6, rgb: [50, 60, 70] }));
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'topaz-video-proteus', video_url: `data:video/mp4;base64,${source.toString('base64')}` },
      }),
      202,
    );
    expect(job).toMatchObject({
      estimated_cost_usd: 1.12,
      inputs: { resolution: '1080p', output_width: 1920, output_height: 1080, seconds: 3, credits: 8 },
    });
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id, 20_000);
    expect(done).toMatchObject({
      status: 'completed',
      cost_usd: 1.12,
      usage: { unit: 'credit', units: 8 },
      outputs: [{ format: 'mp4', mime_type: 'video/mp4', duration_seconds: 3 }],
    });
    const input = new Input({
      source: new BufferSource((await fetchHosted(h, done.outputs[0].url)).bytes),
      formats: ALL_FORMATS,
    });
    const track = await input.getPrimaryVideoTrack();
    expect([await input.computeDuration(), track?.codec, track?.displayWidth, track?.displayHeight]).toEqual([
      3,
      'avc',
      1920,
      1080,
    ]);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(1_120_000n);
  }, 30_000);

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', JOBS, { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const source = Buffer.from(await renderClip({ width: 160, height: 90, frames: 18, fps: 6, rgb: [50, 60, 70] }));
    const first = { model: 'topaz-video-proteus', video_url: `data:video/mp4;base64,${source.toString('base64')}` };
    const firstAnswer = await expectIdempotencyContract(
      send,
      { first, other: { ...first, model: 'topaz-video-iris' } },
      'native',
      202,
    );
    const done = await untilTerminal(h, JOBS, apiKey, expectNativeOk(firstAnswer, 202).job_id, 20_000);
    expect(done.status).toBe('completed');
    // One job, charged once: nothing else held, and the balance down by its cost alone.
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: 5_000_000n - usdToMicros(done.cost_usd),
    });
  }, 30_000);

  it('400 before anything is fetched: not a video restoration model, an unknown resolution; 402 when a credit cannot be paid', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'topaz-bloom', video_url: 'https://example.com/a.mp4' },
      }),
      400,
      'model_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'topaz-video-iris', video_url: 'https://example.com/a.mp4', resolution: '8k' },
      }),
      400,
      'invalid_request',
    );
    const broke = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, {
        key: broke.apiKey,
        body: { model: 'topaz-video-iris', video_url: 'https://example.com/a.mp4' },
      }),
      402,
      'insufficient_balance',
    );
  });
});

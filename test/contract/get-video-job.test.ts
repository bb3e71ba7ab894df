/**
 * GET /v1/llm/videos/jobs/{job_id} (SPEC 2.8, 3.1) on the embedded sandbox: real H.264 clips (MP4, MOV by remux),
 * probed here for container, codec, size and duration; charged once; a draft's poll carries its final's price.
 */
import { ALL_FORMATS, BufferSource, Input } from 'mediabunny';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { untilTerminal } from '../setup/jobs.js';
import { micros } from '../setup/money.js';

let h: Harness;
beforeAll(async () => {
  // Clips take seconds to encode on this machine, and their polls would use up the default 120 a minute.
  h = await startHarness({
    MEDIA_POLL_MS: '50',
    RATE_LIMIT_PER_KEY_PER_MINUTE: '100000',
    RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '100000',
  });
});
afterAll(() => h.close());

const JOBS = '/v1/llm/videos/jobs';
/** How long a sandbox clip may take to encode on a busy machine (1080p is a few seconds). */
const RENDER_MS = 20_000;
const kickoff = (key: string, body: Record<string, unknown>) =>
  call(h.baseUrl, 'POST', JOBS, { key, body: { prompt: 'A paper boat on a rainy street', ...body } });

async function probe(link: string): Promise<{
  type: string | null;
  path: string;
  format: string;
  duration: number;
  codec: string | null;
  width: number;
  height: number;
}> {
  const { type, bytes, path } = await fetchHosted(h, link);
  const input = new Input({ source: new BufferSource(bytes), formats: ALL_FORMATS });
  const track = await input.getPrimaryVideoTrack();
  return {
    type,
    path,
    format: (await input.getFormat()).name,
    duration: await input.computeDuration(),
    codec: track?.codec ?? null,
    width: track?.displayWidth ?? 0,
    height: track?.displayHeight ?? 0,
  };
}

describe('GET /v1/llm/videos/jobs/{job_id}', () => {
  it('a 480p draft: an H.264 MP4 of 854x480 and 4 s, hosted; charged once; its draft block prices the final, which renders 1080p as a new job billed separately', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const job = expectNativeOk(await kickoff(apiKey, { model: 'vidA-2-5', duration: 4, resolution: '480p' }), 202);
    expect(job).toMatchObject({
      status: 'processing',
      model: 'vidA-2-5',
      estimated_cost_usd: 0.792,
      inputs: { draft: true, resolution: '480p', duration: 4, output_format: 'mp4' },
    });
    expect(job.config).toEqual({ resolution: '480p', audio: false, duration: 4, task: 'text_to_video', mode: null });
    const draft = await untilTerminal(h, JOBS, apiKey, job.job_id, RENDER_MS);
    expect(draft).toMatchObject({
      status: 'completed',
      cost_usd: 0.792,
      usage: { unit: 'second', units: 4 },
      video: { stored_ready: true },
    });
    expect(draft.draft).toEqual({
      final_cost_usd: 3.44,
      final_discounted_cost_usd: 3.44,
      final_until: expect.any(Number),
      final_path: `/v1/llm/videos/jobs/${job.job_id}/final`,
    });
    expect(draft.draft.final_until * 1000).toBeGreaterThan(Date.now() + 6.9 * 24 * 3600_000);
    expect(await probe(draft.video.url)).toMatchObject({
      type: 'video/mp4',
      format: 'MP4',
      duration: 4,
      codec: 'avc',
      width: 854,
      height: 480,
    });
    expect(draft.outputs[0]).toMatchObject({ mime_type: 'video/mp4', format: 'mp4', duration_seconds: 4 });

    const final = expectNativeOk(await call(h.baseUrl, 'POST', draft.draft.final_path, { key: apiKey }), 202);
    expect(final).toMatchObject({
      model: 'vidA-2-5',
      estimated_cost_usd: 3.44,
      inputs: { resolution: '1080p', duration: 4 },
    });
    expect(final.job_id).not.toBe(job.job_id);
    const rendered = await untilTerminal(h, JOBS, apiKey, final.job_id, RENDER_MS);
    expect(rendered).not.toHaveProperty('draft');
    expect(await probe(rendered.video.url)).toMatchObject({ width: 1920, height: 1080, duration: 4 });
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(0.792) + micros(3.44));
  }, 30_000);

  it('mov is remuxed and served under its own extension and type', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const done = await untilTerminal(
      h,
      JOBS,
      apiKey,
      expectNativeOk(
        await kickoff(apiKey, { model: 'vidA-2', duration: 4, output_format: 'mov', aspect_ratio: '9:16' }),
        202,
      ).job_id,
      RENDER_MS,
    );
    const clip = await probe(done.video.url);
    expect(clip).toMatchObject({
      type: 'video/quicktime',
      format: 'QuickTime File Format',
      codec: 'avc',
      width: 720,
      height: 1280,
    });
    expect(clip.path.endsWith('.mov')).toBe(true);
    expect(done.outputs[0]).toMatchObject({ format: 'mov', mime_type: 'video/quicktime' });
  });
});

/**
 * POST /v1/llm/videos/jobs (SPEC 2.12, 7.4) on the embedded sandbox: every field rule checked before anything is
 * held; media inputs hosted before dispatch (an unusable one fails the job); vidA-2's reference video held at its
 * longest and charged by its measured length.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderClip } from '../../src/adapters/video-codec/clip-jobs.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
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

describe('POST /v1/llm/videos/jobs', () => {
  it('an image_url sent as a data URI is hosted before dispatch and the job renders; output_quality is inert and said so', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const png = await sharp({ create: { width: 32, height: 18, channels: 3, background: { r: 10, g: 200, b: 30 } } })
      .png()
      .toBuffer();
    const job = expectNativeOk(
      await kickoff(apiKey, {
        model: 'wan-2-6-i2v',
        resolution: '720p',
        duration: 5,
        image_url: `data:image/jpeg;base64,${png.toString('base64')}`,
        output_quality: 80,
      }),
      202,
    );
    expect(job.inputs).toMatchObject({ output_quality: 80, notes: expect.stringMatching(/no effect/) });
    const hosted = await h.deps.blobs.get(`${job.job_id}-in-0.png`, h.deps.now());
    expect([hosted?.meta.contentType, hosted?.bytes.equals(png)]).toEqual(['image/png', true]);
    expect((await untilTerminal(h, JOBS, apiKey, job.job_id, RENDER_MS)).status).toBe('completed');
  });

  it('a reference that cannot be fetched fails the job (input_rejected, HTTP 200 on the poll), nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const job = expectNativeOk(
      await kickoff(apiKey, {
        model: 'wan-2-6-i2v',
        resolution: '720p',
        duration: 5,
        image_url: 'http://127.0.0.1:9/private.png',
      }),
      202,
    );
    expect(job).toMatchObject({
      status: 'failed',
      error_code: 'input_rejected',
      error: expect.stringMatching(/image_url/),
    });
    expect(expectNativeOk(await call(h.baseUrl, 'GET', `${JOBS}/${job.job_id}`, { key: apiKey }))).toMatchObject({
      status: 'failed',
      error_code: 'input_rejected',
    });
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ heldMicros: 0n, availableMicros: 5_000_000n });
  });

  it('field rules up front, nothing held: 400 invalid_request or no_provider_available naming the field', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const image = 'https://example.com/a.png';
    for (const [body, code, field] of [
      [{ model: 'wan-2-6-i2v', duration: 5 }, 'invalid_request', 'image_url'],
      [{ model: 'vidK-2-6-motion-control-standard', duration: 5, image_url: image }, 'invalid_request', 'video_url'],
      [{ model: 'vidA-2-5', duration: 5, character_orientation: 'image' }, 'invalid_request', 'character_orientation'],
      [{ model: 'vidA-2-5', duration: 5, aspect_ratio: 'auto' }, 'invalid_request', 'aspect_ratio'],
      [
        { model: 'vidA-2-5', duration: 5, resolution: '1080p', last_frame_url: image },
        'invalid_request',
        'last_frame_url',
      ],
      [{ model: 'vidA-2-5', duration: 5, resolution: '1080p', video_task: 'extend' }, 'invalid_request', 'video_task'],
      [{ model: 'vidA-2-5', duration: 5, output_format: 'webm' }, 'invalid_request', 'output_format'],
      [{ model: 'vidA-2', duration: 5, output_format: 'webm' }, 'invalid_request', 'output_format'],
      [{ model: 'vidA-2-5', duration: 31 }, 'no_provider_available', 'duration'],
      [{ model: 'vidV-3-1-pro', duration: 5 }, 'no_provider_available', 'duration'],
      [{ model: 'vidA-2-5', duration: 5, resolution: '4k' }, 'no_provider_available', 'resolution'],
      [{ model: 'vidA-2-5-mini', duration: 5, video_task: 'extend' }, 'invalid_request', 'video_task'],
      [{ model: 'vidA-2-5', duration: 5, resolution: '480p', video_task: 'edit' }, 'invalid_request', 'video_task'],
      [{ model: 'vidK-1-6', duration: 5, resolution: '4k', audio: true }, 'no_provider_available', 'audio'],
      [{ model: 'vidK-2-1', duration: 5, mode: 'turbo' }, 'no_provider_available', 'mode'],
      [
        { model: 'vidA-2-5', duration: 5, reference_image_urls: [image] },
        'no_provider_available',
        'reference_image_urls',
      ],
    ] as const) {
      const response = await kickoff(apiKey, body);
      expectNativeError(response, 400, code);
      const named =
        code === 'invalid_request' && response.body.data.meta.fields !== undefined
          ? response.body.data.meta.fields[0].loc.at(-1)
          : response.body.data.meta.field;
      expect({ body, field: named }).toEqual({ body, field });
    }
    const refused = await kickoff(apiKey, { model: 'vidA-2-5', duration: 5, codec: 'h265' });
    expectNativeError(refused, 400, 'invalid_request');
    expect(refused.body.data.meta).toMatchObject({ field: 'codec', hint: expect.stringMatching(/output_format/) });
    // The SKU delivers webm, but no route of this deployment does: the containers the routes deliver are named.
    expect((await kickoff(apiKey, { model: 'vidA-2-5', duration: 5, output_format: 'webm' })).body.data.error).toMatch(
      /mp4, mov/,
    );
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ heldMicros: 0n, availableMicros: 10_000_000n });
  });

  it('vidA-2-5 renders 720p at $0.36/s, a clip of its own (not a draft)', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const job = expectNativeOk(await kickoff(apiKey, { model: 'vidA-2-5', duration: 4, resolution: '720p' }), 202);
    expect([job.estimated_cost_usd, job.inputs.draft]).toEqual([1.44, undefined]);
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id, RENDER_MS);
    expect(done).toMatchObject({ status: 'completed', cost_usd: 1.44, config: { resolution: '720p' } });
    expect(done.draft).toBeUndefined();
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(1.44));
  }, 30_000);

  it('402 insufficient_balance; 404 job_not_found for another account’s or an unknown job; 401 without a key', async () => {
    const broke = await h.newAccount();
    expectNativeError(await kickoff(broke.apiKey, { model: 'vidA-2-5', duration: 5 }), 402, 'insufficient_balance');
    expectNativeError(
      await call(h.baseUrl, 'GET', `${JOBS}/${newId('job')}`, { key: broke.apiKey }),
      404,
      'job_not_found',
    );
    expectNativeError(await call(h.baseUrl, 'GET', `${JOBS}/${newId('job')}`), 401, 'authentication_required');
  });

  it('holds the longest reference it takes, and charges the reference’s measured length', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const reference = Buffer.from(await renderClip({ width: 160, height: 90, frames: 18, fps: 6, rgb: [200, 40, 40] })); // 3 s
    const job = expectNativeOk(
      await kickoff(apiKey, {
        model: 'vidA-2',
        duration: 4,
        video_url: `data:application/octet-stream;base64,${reference.toString('base64')}`,
      }),
      202,
    );
    // $0.272/s × (4 s of output + the 12 s longest reference), held.
    expect(job.estimated_cost_usd).toBe(4.352);
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id, RENDER_MS);
    // Charged for 4 s of output + the 3 s the reference measured.
    expect(done.cost_usd).toBe(1.904);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(1.904));
  });

  it('a reference longer than that fails the job (input_rejected), nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const long = Buffer.from(await renderClip({ width: 64, height: 36, frames: 13 * 6, fps: 6, rgb: [0, 0, 200] })); // 13 s
    const job = expectNativeOk(
      await kickoff(apiKey, {
        model: 'vidA-2',
        duration: 4,
        video_url: `data:video/mp4;base64,${long.toString('base64')}`,
      }),
      202,
    );
    expect(job).toMatchObject({
      status: 'failed',
      error_code: 'input_rejected',
      error: expect.stringMatching(/longer than the 12 s/),
    });
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ heldMicros: 0n, availableMicros: 10_000_000n });
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', JOBS, { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const first = { model: 'vidA-2-5', duration: 5, prompt: 'A paper boat on a rainy street' };
    const firstAnswer = await expectIdempotencyContract(
      send,
      { first, other: { ...first, prompt: 'A kite over a windy beach' } },
      'native',
      202,
    );
    const job = expectNativeOk(firstAnswer, 202);
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id, RENDER_MS);
    expect(done.status).toBe('completed');
    // One job, charged once: nothing else held, and the balance down by its cost alone.
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: 10_000_000n - micros(done.cost_usd),
    });
  }, 30_000);
});

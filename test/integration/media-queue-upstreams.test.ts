/**
 * Speech, music, video and restoration jobs routed to fal.ai-style queue APIs (local fakes: submit, status, result), misbehaving on purpose
 * (SPEC 3.1, 7.5): results re-hosted (never the vendor's link), a wrong Content-Type sniffed away, a failure and
 * junk recovered on the alternate route and charged once, a moderation verdict some polls after kickoff not
 * re-routed, a stall at 0 % given up by the watchdog, no route accepting the submission refused at kickoff; every
 * failure costs nothing.
 */
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { solidImage } from '../../src/adapters/image-codec/sharp-images.js';
import { type FakeQueue, startFakeQueue } from '../fixtures/fake-queue-upstream.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { micros } from '../setup/money.js';
import { eventually } from '../setup/polling.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import { expectNothingBilled, money } from './gateway-helpers.js';

let a: FakeQueue;
let b: FakeQueue;
let h: Harness;

beforeAll(async () => {
  a = await startFakeQueue();
  b = await startFakeQueue();
  const formats = { audio: ['wav', 'mp3'], music: ['wav', 'mp3'], video: ['mp4'], restoration: ['png'] };
  const upstreams = writeUpstreamsFile({
    'eleven-v3': [
      {
        provider: 'fal-a',
        type: 'fal-queue',
        url: a.baseUrl,
        model: 'fal-ai/tts-a',
        cost: { perRequest: 0.001 },
        formats,
        apiKeyEnv: 'FAKE_FAL_KEY',
      },
      {
        provider: 'fal-b',
        type: 'fal-queue',
        url: b.baseUrl,
        model: 'fal-ai/tts-b',
        cost: { perRequest: 0.002 },
        formats,
      },
    ],
    'musicgen-large': [
      {
        provider: 'fal-a',
        type: 'fal-queue',
        url: a.baseUrl,
        model: 'fal-ai/musicgen',
        cost: { perRequest: 0.001 },
        formats,
        apiKeyEnv: 'FAKE_FAL_KEY',
      },
    ],
    'topaz-gigapixel-standard': [
      {
        provider: 'fal-b',
        type: 'fal-queue',
        url: b.baseUrl,
        model: 'fal-ai/topaz/upscale',
        cost: { perRequest: 0.002 },
        formats,
      },
    ],
    'runway-gen-4-5': [
      {
        provider: 'fal-a',
        type: 'fal-queue',
        url: a.baseUrl,
        model: 'fal-ai/vid-a',
        cost: { perRequest: 0.001 },
        formats,
        apiKeyEnv: 'FAKE_FAL_KEY',
      },
      {
        provider: 'fal-b',
        type: 'fal-queue',
        url: b.baseUrl,
        model: 'fal-ai/vid-b',
        cost: { perRequest: 0.002 },
        formats,
      },
    ],
  });
  process.env.FAKE_FAL_KEY = 'fal-secret';
  // The fakes serve their files from 127.0.0.1, which the media fetcher refuses unless allowed.
  h = await startHarness({
    UPSTREAMS_FILE: upstreams,
    MEDIA_FETCH_ALLOW: '127.0.0.1',
    MEDIA_POLL_MS: '20',
    MEDIA_STALL_MS: '400',
  });
});

afterAll(async () => {
  await h?.close();
  await a?.close();
  await b?.close();
  removeUpstreamsFiles();
});

beforeEach(() => {
  a.setBehaviour('ok');
  b.setBehaviour('ok');
});

const TEXT = 'A sentence to be read aloud.';
const kickoff = (key: string, body: Record<string, unknown> = {}) =>
  call(h.baseUrl, 'POST', '/v1/llm/audio/jobs', {
    key,
    body: { model: 'eleven-v3', input: TEXT, output_format: 'wav', ...body },
  });
const terminal = (key: string, jobId: string) =>
  eventually(
    async () => {
      const job = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/audio/jobs/${jobId}`, { key }));
      return job.status === 'completed' || job.status === 'failed' ? job : undefined;
    },
    10_000,
    `job ${jobId} terminal`,
  );

describe('speech jobs on fal-style queue upstreams', () => {
  it('submits text, voice and container with the Key credential; polls to completion; re-hosts the WAV; charges the estimate once', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const seen = a.submissions.length;
    const job = expectNativeOk(await kickoff(apiKey), 202);
    expect(a.submissions[seen]).toEqual({
      model: 'fal-ai/tts-a',
      body: { text: TEXT, voice: 'Rachel', output_format: 'wav' },
      authorization: 'Key fal-secret',
    });
    const done = await terminal(apiKey, job.job_id);
    expect(done).toMatchObject({
      status: 'completed',
      cost_usd: job.estimated_cost_usd,
      usage: { unit: 'character', units: TEXT.length },
    });
    const [output] = done.outputs;
    expect(output.url.startsWith(a.baseUrl)).toBe(false);
    const file = await fetchHosted(h, output.url);
    expect(file.type).toBe('audio/wav');
    expect((await parseBuffer(file.bytes, { mimeType: 'audio/wav' })).format.duration).toBeCloseTo(1.5, 2);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(job.estimated_cost_usd));
  });

  it('a file served with a wrong Content-Type is hosted with the type sniffed from its bytes', async () => {
    a.setBehaviour('wrongContentType');
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const done = await terminal(apiKey, expectNativeOk(await kickoff(apiKey, { output_format: 'mp3' }), 202).job_id);
    expect(done.outputs[0]).toMatchObject({ mime_type: 'audio/mpeg', format: 'mp3' });
    expect((await fetchHosted(h, done.outputs[0].url)).type).toBe('audio/mpeg');
  });

  it.each([
    ['a runner failure', { failAfterPolls: 2, failure: 'runner' } as const],
    ['junk instead of audio', 'junk' as const],
  ])('%s on the first route is recovered on the alternate route: completed, charged once', async (_what, behaviour) => {
    a.setBehaviour(behaviour);
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const seen = b.submissions.length;
    const job = expectNativeOk(await kickoff(apiKey), 202);
    const done = await terminal(apiKey, job.job_id);
    expect(done.status).toBe('completed');
    expect(b.submissions.length).toBe(seen + 1);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(job.estimated_cost_usd));
  });

  it('a moderation verdict some polls after kickoff fails the job with content_moderation, not re-routed, nothing charged', async () => {
    a.setBehaviour({ failAfterPolls: 4, failure: 'moderation' });
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const before = await money(h, accountId);
    const seen = b.submissions.length;
    const done = await terminal(apiKey, expectNativeOk(await kickoff(apiKey), 202).job_id);
    expect(done).toMatchObject({
      status: 'failed',
      error_code: 'content_moderation',
      error: expect.stringMatching(/content checker/),
    });
    expect(b.submissions.length).toBe(seen);
    await expectNothingBilled(h, accountId, before);
  });

  it('a render stuck at 0 % on every route is given up by the watchdog: failed with a hint, nothing charged', async () => {
    a.setBehaviour('stall');
    b.setBehaviour('stall');
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const before = await money(h, accountId);
    const done = await terminal(apiKey, expectNativeOk(await kickoff(apiKey), 202).job_id);
    expect(done).toMatchObject({
      status: 'failed',
      error_code: 'generation_failed',
      error: expect.stringMatching(/0 %.*Kick it off again/),
    });
    await expectNothingBilled(h, accountId, before);
  });

  it('no route accepting the submission: 503 provider_unavailable at kickoff, nothing charged or held', async () => {
    a.setBehaviour({ submitStatus: 503 });
    b.setBehaviour({ submitStatus: 500 });
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const before = await money(h, accountId);
    expectNativeError(await kickoff(apiKey), 503, 'provider_unavailable');
    await expectNothingBilled(h, accountId, before);
  });
});

describe('music jobs on a fal-style queue upstream', () => {
  const music = (key: string) =>
    call(h.baseUrl, 'POST', '/v1/llm/music/jobs', {
      key,
      body: { model: 'musicgen-large', prompt: 'Drums and bass', duration: 5, output_format: 'wav' },
    });
  const terminalMusic = (key: string, jobId: string) =>
    eventually(
      async () => {
        const job = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/music/jobs/${jobId}`, { key }));
        return job.status === 'completed' || job.status === 'failed' ? job : undefined;
      },
      10_000,
      `job ${jobId} terminal`,
    );

  it('a track shorter than asked is charged by its measured length, less than the hold', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const seen = a.submissions.length;
    const job = expectNativeOk(await music(apiKey), 202);
    expect(a.submissions[seen]?.body).toEqual({
      prompt: 'Drums and bass',
      duration: 5,
      instrumental: false,
      tracks: 1,
      output_format: 'wav',
    });
    const done = await terminalMusic(apiKey, job.job_id);
    // The fake renders 1.5 s: 1.5 × $0.0014, where 5 s were held.
    expect(done).toMatchObject({ status: 'completed', usage: { unit: 'second', units: 1.5 }, cost_usd: 0.0021 });
    expect(job.estimated_cost_usd).toBe(0.007);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(2_100n);
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });

  it('a failed music job says why in `error` only (SPEC 7.5: no error_code), nothing charged', async () => {
    a.setBehaviour({ failAfterPolls: 2, failure: 'moderation' });
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const before = await money(h, accountId);
    const done = await terminalMusic(apiKey, expectNativeOk(await music(apiKey), 202).job_id);
    expect(done).toMatchObject({ status: 'failed', error: expect.stringMatching(/content checker/) });
    expect(done).not.toHaveProperty('error_code');
    await expectNothingBilled(h, accountId, before);
  });
});

describe('video jobs on fal-style queue upstreams', () => {
  it('a clip stuck at 0 % on the first route is given up by the watchdog; the alternate route’s MP4, mislabelled, is sniffed, hosted and charged once by its seconds', async () => {
    a.setBehaviour('stall');
    b.setBehaviour('wrongContentType');
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/videos/jobs', {
        key: apiKey,
        body: { model: 'runway-gen-4-5', prompt: 'Waves', duration: 5 },
      }),
      202,
    );
    expect(a.submissions.at(-1)?.body).toMatchObject({
      prompt: 'Waves',
      duration: 5,
      resolution: '720p',
      output_format: 'mp4',
    });
    const done = await eventually(
      async () => {
        const poll = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/videos/jobs/${job.job_id}`, { key: apiKey }));
        return poll.status === 'completed' || poll.status === 'failed' ? poll : undefined;
      },
      10_000,
      'the video job',
    );
    // The fake's clip plays 2 s of the 5 asked: 2 s are billed (runway-gen-4-5: $0.12 a second), less than the hold.
    expect(done).toMatchObject({
      status: 'completed',
      outputs: [{ format: 'mp4', mime_type: 'video/mp4', duration_seconds: 2 }],
      usage: { unit: 'second', units: 2 },
      video: { stored_ready: true },
    });
    expect((await fetchHosted(h, done.video.url)).type).toBe('video/mp4');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(done.cost_usd));
    expect(done.cost_usd).toBeLessThan(job.estimated_cost_usd);
  });
});

describe('video moderation (SPEC 7.5: two independent upstreams refused)', () => {
  const video = async (key: string) =>
    expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/videos/jobs', {
        key,
        body: { model: 'runway-gen-4-5', prompt: 'Waves', duration: 5 },
      }),
      202,
    );
  const terminalVideo = (key: string, jobId: string) =>
    eventually(
      async () => {
        const poll = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/videos/jobs/${jobId}`, { key }));
        return poll.status === 'completed' || poll.status === 'failed' ? poll : undefined;
      },
      10_000,
      'the video job',
    );

  it('one upstream’s refusal is not the verdict: the other renders, charged once', async () => {
    a.setBehaviour({ failAfterPolls: 2, failure: 'moderation' });
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const seen = b.submissions.length;
    const done = await terminalVideo(apiKey, (await video(apiKey)).job_id);
    expect(done.status).toBe('completed');
    expect(b.submissions.length).toBe(seen + 1);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(done.cost_usd));
  });

  it('two refusals are: failed with content_moderation, nothing charged', async () => {
    a.setBehaviour({ failAfterPolls: 2, failure: 'moderation' });
    b.setBehaviour({ failAfterPolls: 1, failure: 'moderation' });
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const before = await money(h, accountId);
    const done = await terminalVideo(apiKey, (await video(apiKey)).job_id);
    expect(done).toMatchObject({ status: 'failed', error_code: 'content_moderation' });
    await expectNothingBilled(h, accountId, before);
  });
});

describe('a model refusing the input media (SPEC 7.5 input_rejected)', () => {
  const video = (key: string) =>
    call(h.baseUrl, 'POST', '/v1/llm/videos/jobs', {
      key,
      body: { model: 'runway-gen-4-5', prompt: 'Waves', duration: 5 },
    });

  it('on the result, some polls after kickoff: failed with input_rejected and the reason, not re-routed, nothing charged', async () => {
    a.setBehaviour({ failAfterPolls: 2, failure: 'input' });
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const before = await money(h, accountId);
    const seen = b.submissions.length;
    const job = expectNativeOk(await video(apiKey), 202);
    const done = await eventually(
      async () => {
        const poll = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/videos/jobs/${job.job_id}`, { key: apiKey }));
        return poll.status === 'failed' || poll.status === 'completed' ? poll : undefined;
      },
      10_000,
      'the video job',
    );
    expect(done).toMatchObject({
      status: 'failed',
      error_code: 'input_rejected',
      error: expect.stringMatching(/image aspect ratio unsupported/),
    });
    expect(b.submissions.length).toBe(seen);
    await expectNothingBilled(h, accountId, before);
  });

  it('at submission: the kickoff answers the failed job (input_rejected), not 503; not re-routed, nothing charged', async () => {
    a.setBehaviour('refuseInput');
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    const before = await money(h, accountId);
    const seen = b.submissions.length;
    expect(expectNativeOk(await video(apiKey), 202)).toMatchObject({
      status: 'failed',
      error_code: 'input_rejected',
      error: expect.stringMatching(/image aspect ratio unsupported/),
    });
    expect(b.submissions.length).toBe(seen);
    await expectNothingBilled(h, accountId, before);
  });
});

describe('image restoration on a fal-style queue upstream', () => {
  it('the source is hosted and its link sent; the upscaled PNG is fetched, hosted and charged its credits', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const source = await solidImage(40, 30, { r: 9, g: 9, b: 9, alpha: 1 }, 'png');
    const seen = b.submissions.length;
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/topaz/image/jobs', {
        key: apiKey,
        body: { model: 'topaz-gigapixel-standard', image_url: source.toString('base64'), scale: 4 },
      }),
      202,
    );
    expect(b.submissions[seen]?.body).toMatchObject({
      scale: 4,
      width: 160,
      height: 120,
      image_url: expect.stringContaining('/v1/files/'),
      output_format: 'png',
    });
    const done = await eventually(
      async () => {
        const poll = expectNativeOk(
          await call(h.baseUrl, 'GET', `/v1/llm/topaz/image/jobs/${job.job_id}`, { key: apiKey }),
        );
        return poll.status === 'completed' || poll.status === 'failed' ? poll : undefined;
      },
      10_000,
      'the restoration',
    );
    expect(done).toMatchObject({
      status: 'completed',
      cost_usd: 0.14,
      usage: { unit: 'credit', units: 1 },
      outputs: [{ format: 'png', mime_type: 'image/png' }],
    });
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(140_000n);
  });
});

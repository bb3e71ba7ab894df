/**
 * GET /v1/llm/images/jobs/{job_id} (SPEC 2.8, 3.1): the job's states, the completed payload replayed on every poll
 * (the bytes only on the poll that first delivers it), charged once however often it is polled; another
 * account's, an unknown or an expired job is 404 job_not_found.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { micros } from '../setup/money.js';
import { eventually } from '../setup/polling.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const JOBS = '/v1/llm/images/jobs';
const poll = (key: string, jobId: string) => call(h.baseUrl, 'GET', `${JOBS}/${encodeURIComponent(jobId)}`, { key });

/** Waits until the job is terminal without polling it (the first poll is the one under test). */
async function untilTerminal(jobId: string): Promise<void> {
  await eventually(
    async () => {
      const job = await h.deps.jobs.get(jobId, h.deps.now());
      return job?.status === 'completed' || job?.status === 'failed' ? job : undefined;
    },
    5_000,
    `job ${jobId} finished`,
  );
}

describe('GET /v1/llm/images/jobs/{job_id}', () => {
  it('completed: the first poll delivers the bytes (decodable WebP), later polls replay the hosted url without them; polled ten times, charged once', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'imgG-2', prompt: 'Dunes', size: '1536x1024', n: 2, output_format: 'webp' },
      }),
      202,
    );
    await untilTerminal(job.job_id);
    const first = expectNativeOk(await poll(apiKey, job.job_id));
    expect(first).toMatchObject({
      job_id: job.job_id,
      status: 'completed',
      model: 'imgG-2-2k',
      estimated_cost_usd: job.estimated_cost_usd,
      cost_usd: job.estimated_cost_usd,
    });
    expect(first.usage).toEqual({
      model: 'imgG-2-2k',
      images: 2,
      size: '1536x1024',
      aspect_ratio: '3:2',
      output_format: 'webp',
      cost: job.estimated_cost_usd,
    });
    expect(micros(first.balance_usd)).toBe(1_000_000n - micros(first.cost_usd));
    expect(first.images).toHaveLength(2);
    for (const image of first.images) {
      const bytes = Buffer.from(image.b64_json, 'base64');
      const meta = await sharp(bytes).metadata();
      expect([image.mime_type, meta.format, meta.width, meta.height, meta.hasAlpha]).toEqual([
        'image/webp',
        'webp',
        1536,
        1024,
        true,
      ]);
      const hosted = await fetchHosted(h, image.url);
      expect([hosted.type, hosted.bytes.equals(bytes)]).toEqual(['image/webp', true]);
    }
    const replay = {
      ...first,
      images: first.images.map(({ url, mime_type }: { url: string; mime_type: string }) => ({ url, mime_type })),
    };
    for (let i = 0; i < 9; i++) expect(expectNativeOk(await poll(apiKey, job.job_id))).toEqual(replay);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(first.cost_usd));
  });

  it('response_format url: no poll carries the bytes', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'imgG-4o', prompt: 'Fog', response_format: 'url' },
      }),
      202,
    );
    await untilTerminal(job.job_id);
    const done = expectNativeOk(await poll(apiKey, job.job_id));
    expect(done.images).toEqual([{ url: expect.stringContaining('/v1/files/'), mime_type: 'image/png' }]);
  });

  it('404 job_not_found: another account’s job, an unknown id, an expired record, a job of another kind', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 1 });
    const stranger = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, { key: owner.apiKey, body: { model: 'imgG-4o', prompt: 'Fog' } }),
      202,
    );
    expectNativeError(await poll(stranger.apiKey, job.job_id), 404, 'job_not_found');
    expectNativeError(await poll(owner.apiKey, newId('job')), 404, 'job_not_found');
    const nowMs = h.deps.now();
    const expired = {
      id: newId('job'),
      accountId: owner.accountId,
      kind: 'image',
      status: 'completed' as const,
      createdAtMs: nowMs - 16 * 60_000,
      updatedAtMs: nowMs - 15 * 60_000,
      expiresAtMs: nowMs - 60_000,
      data: {},
    };
    await h.deps.jobs.create(expired);
    expectNativeError(await poll(owner.apiKey, expired.id), 404, 'job_not_found');
    const chat = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/chat/jobs', {
        key: owner.apiKey,
        body: { model: 'gpt-5-mini', messages: [{ role: 'user', content: 'hi' }] },
      }),
      202,
    );
    expectNativeError(await poll(owner.apiKey, chat.job_id), 404, 'job_not_found');
  });

  it('401 without a key', async () => {
    expectNativeError(await call(h.baseUrl, 'GET', `${JOBS}/${newId('job')}`), 401, 'authentication_required');
  });
});

/**
 * POST /v1/llm/topaz/image/jobs (SPEC 4.4, 4.6) on the embedded sandbox: the source measured once hosted, the
 * credits of its output held and charged on completion (about 1 per 24 megapixels, rounded up); bad requests cost
 * nothing.
 */
import sharp from 'sharp';
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

const JOBS = '/v1/llm/topaz/image/jobs';
const photo = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 120, g: 80, b: 40 } } })
    .png()
    .toBuffer();

describe('POST /v1/llm/topaz/image/jobs', () => {
  it('a 1500x1000 photo at 5x: 7500x5000 (37.5 MP) is 2 credits, $0.28, held and charged once; the JPEG decodes at that size', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const source = (await photo(1500, 1000)).toString('base64');
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'topaz-gigapixel-standard', image_url: source, scale: 5, output_format: 'jpeg' },
      }),
      202,
    );
    expect(job).toMatchObject({
      model: 'topaz-gigapixel-standard',
      estimated_cost_usd: 0.28,
      inputs: { scale: 5, output_width: 7500, output_height: 5000, credits: 2, output_format: 'jpeg' },
    });
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id, 20_000);
    expect(done).toMatchObject({
      status: 'completed',
      cost_usd: 0.28,
      usage: { unit: 'credit', units: 2 },
      outputs: [{ mime_type: 'image/jpeg', format: 'jpeg' }],
    });
    const meta = await sharp((await fetchHosted(h, done.outputs[0].url)).bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 7500, 5000]);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(280_000n);
  }, 30_000);

  it('a source that is not an image fails the job (input_rejected), nothing charged or held', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'topaz-bloom', image_url: Buffer.from('not pixels').toString('base64') },
      }),
      202,
    );
    expect(job).toMatchObject({
      status: 'failed',
      error_code: 'input_rejected',
      error: expect.stringMatching(/image_url/),
    });
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({ heldMicros: 0n, availableMicros: 1_000_000n });
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', JOBS, { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const first = {
      model: 'topaz-gigapixel-standard',
      image_url: (await photo(150, 100)).toString('base64'),
      scale: 2,
      output_format: 'jpeg',
    };
    const firstAnswer = await expectIdempotencyContract(send, { first, other: { ...first, scale: 3 } }, 'native', 202);
    const done = await untilTerminal(h, JOBS, apiKey, expectNativeOk(firstAnswer, 202).job_id, 20_000);
    expect(done.status).toBe('completed');
    // One job, charged once: nothing else held, and the balance down by its cost alone.
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: 1_000_000n - usdToMicros(done.cost_usd),
    });
  }, 30_000);

  it('400s before anything is fetched: not a restoration model, a scale above 6, a container the model lacks; an output above 200 MP', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const source = (await photo(64, 48)).toString('base64');
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'imgG-2', image_url: source } }),
      400,
      'model_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'topaz-bloom', image_url: source, scale: 7 } }),
      400,
      'invalid_request',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'topaz-bloom', image_url: source, output_format: 'webp' },
      }),
      400,
      'invalid_request',
    );
    const huge = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'topaz-bloom', image_url: (await photo(4000, 3000)).toString('base64'), scale: 6 },
      }),
      202,
    );
    expect(huge).toMatchObject({
      status: 'failed',
      error_code: 'input_rejected',
      error: expect.stringMatching(/200 a restoration/),
    });
  });

  it('402 insufficient_balance from an account that cannot pay a credit; nothing fetched', async () => {
    const { apiKey } = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'topaz-bloom', image_url: 'https://example.com/never-fetched.png' },
      }),
      402,
      'insufficient_balance',
    );
  });
});

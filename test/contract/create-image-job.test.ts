/**
 * POST /v1/llm/images/jobs (SPEC 2.11, 3.1, 4.4) on the embedded sandbox: the kickoff holds the estimate and
 * answers at once; the job renders in the background, is charged once when the render finishes (polled or not),
 * and its images decode; the failures at kickoff cost nothing.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { micros } from '../setup/money.js';
import { eventually, pollUntil } from '../setup/polling.js';
import { sleep } from '../setup/time.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const JOBS = '/v1/llm/images/jobs';

const untilCharged = (accountId: string): Promise<bigint> =>
  eventually(
    async () => {
      const posted = await h.deps.ledger.postedSpend(accountId);
      return posted > 0n ? posted : undefined;
    },
    5_000,
    'a charge',
  );

describe('POST /v1/llm/images/jobs', () => {
  it('202 with job_id, the tier billed and estimated_cost_usd = the estimate; held at once, charged exactly that when the render finishes, nobody polling', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const body = { model: 'imgG-2', prompt: 'A lighthouse at dawn', size: '2048x1152', n: 2, output_format: 'jpeg' };
    const estimate = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/llm/images/jobs/estimate', { key: apiKey, body }),
    );
    const response = await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body });
    const job = expectNativeOk(response, 202);
    expect(job).toEqual({
      job_id: expect.stringMatching(/^job_/),
      status: 'pending',
      model: 'imgG-2-2k',
      estimated_cost_usd: estimate.discounted_cost_usd,
      expires_at: expect.any(Number),
    });
    expect(job.expires_at * 1000).toBeGreaterThan(Date.now() + 14 * 60_000);
    expect(await untilCharged(accountId)).toBe(micros(estimate.discounted_cost_usd));
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });

  it('an Idempotency-Key replays the kickoff: one job, one charge', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const body = { model: 'imgG-4o', prompt: 'Fog over a harbour' };
    const headers = { 'idempotency-key': 'image-job-once' };
    const first = expectNativeOk(await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body, headers }), 202);
    const again = await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body, headers });
    expect(expectNativeOk(again, 202).job_id).toBe(first.job_id);
    const posted = await untilCharged(accountId);
    await sleep(100);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(posted);
    expect(posted).toBe(micros(first.estimated_cost_usd));
  });

  it('references are hosted before dispatch; the job renders from them (the sandbox paints the reference colour)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const blue = await sharp({ create: { width: 32, height: 32, channels: 3, background: { r: 0, g: 0, b: 255 } } })
      .png()
      .toBuffer();
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'flux-fill-pro', prompt: 'Paint it', input_images: [blue.toString('base64')] },
      }),
      202,
    );
    expect((await h.deps.blobs.get(`${job.job_id}-ref-0.png`, h.deps.now()))?.bytes.equals(blue)).toBe(true);
    const done = await pollUntil(
      async () => expectNativeOk(await call(h.baseUrl, 'GET', `${JOBS}/${job.job_id}`, { key: apiKey })),
      (polled) => polled.status === 'completed',
      { withinMs: 5_000 },
    );
    const { data } = await sharp(Buffer.from(done.images[0].b64_json, 'base64'))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([data[0]! < 60, data[1]! < 60, data[2]! > 200]).toEqual([true, true, true]);
  });

  it('400s before anything starts, nothing held or charged: an edit-only model without a reference, an unusable reference, a model that is not an image model', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'flux-fill-pro', prompt: 'x' } }),
      400,
      'upstream_validation_error',
    );
    const bad = await call(h.baseUrl, 'POST', JOBS, {
      key: apiKey,
      body: { model: 'flux-fill-pro', prompt: 'x', input_images: ['not base64!'] },
    });
    expectNativeError(bad, 400, 'upstream_validation_error');
    expect(bad.body.data.meta).toMatchObject({ field: 'input_images[0]', hint: expect.any(String) });
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'gpt-5-mini', prompt: 'x' } }),
      400,
      'model_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'imgG-2', prompt: 'x', n: 11 } }),
      400,
      'invalid_request',
    );
    const balance = await h.deps.ledger.getBalance(accountId);
    expect([balance.heldMicros, await h.deps.ledger.postedSpend(accountId)]).toEqual([0n, 0n]);
  });

  it('402 insufficient_balance from a key that cannot pay the estimate; no job, nothing charged', async () => {
    const { accountId, apiKey } = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'imgG-2', prompt: 'x' } }),
      402,
      'insufficient_balance',
    );
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it('401 without a key', async () => {
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { body: { model: 'imgG-2', prompt: 'x' } }),
      401,
      'authentication_required',
    );
  });
});

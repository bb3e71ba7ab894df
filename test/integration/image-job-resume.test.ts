/**
 * SPEC 3.1 "a generation is never submitted twice because delivery or hosting failed": an image job found by
 * another worker after its images were hosted (its first worker died before the charge, or after it) is charged
 * at most once and completed, without asking any upstream again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solidImage } from '../../src/adapters/image-codec/sharp-images.js';
import { heldMoney } from '../../src/domain/jobs/job-steps.js';
import { newId } from '../../src/lib/ids.js';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { eventually } from '../setup/polling.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

let h: Harness;
let fake: FakeUpstream;

beforeAll(async () => {
  fake = await startFakeUpstream();
  const upstreams = writeUpstreamsFile({
    'imgG-4o': [{ provider: 'images', type: 'openai-images', url: fake.baseUrl, cost: { perRequest: 0.01 } }],
  });
  h = await startHarness({ UPSTREAMS_FILE: upstreams });
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  removeUpstreamsFiles();
});

/** An image job as its first worker left it: images hosted and recorded, lease run out, the charge maybe posted. */
async function orphanedAfterHosting(apiKey: string, chargedAlready: boolean): Promise<string> {
  const principal = await h.deps.authenticator.authenticate(apiKey);
  const jobId = newId('job');
  const nowMs = h.deps.now();
  const reservation = await h.deps.billing.reserve(principal, jobId, 80_000n, { durable: true });
  if (chargedAlready)
    await h.deps.billing.chargeOnce(reservation, 80_000n, {
      model: 'imgG-4o',
      kind: 'image',
      endpoint: 'images.generations',
    });
  const images = [];
  for (const i of [0, 1]) {
    const name = `${jobId}-${i}.png`;
    await h.deps.blobs.put(name, await solidImage(8, 8, { r: 0, g: 128, b: 0, alpha: 1 }, 'png'), {
      contentType: 'image/png',
      expiresAtMs: nowMs + 15 * 60_000,
    });
    images.push({ name, url: h.deps.fileLinks.link(name, nowMs + 15 * 60_000), mime_type: 'image/png' });
  }
  const data = {
    model: 'imgG-4o',
    estimated_cost_usd: 0.08,
    request: { model: 'imgG-4o', prompt: 'A lighthouse', n: 2 },
    references: [],
    ...heldMoney(reservation),
    delivery: { provider: 'images', format: 'png', images },
  };
  const job = {
    id: jobId,
    accountId: principal.accountId,
    kind: 'image',
    status: 'processing' as const,
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
    expiresAtMs: nowMs + 15 * 60_000,
    data,
  };
  expect(await h.deps.jobs.create(job, { owner: 'a-dead-worker', untilMs: nowMs - 1 })).toBe(true);
  return jobId;
}

describe('an image job resumed after its images were hosted', () => {
  it.each([
    ['before its charge', false],
    ['after its charge was posted', true],
  ])('%s: completed, charged once, no upstream asked again', async (_when, chargedAlready) => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const seen = fake.requests.length;
    const jobId = await orphanedAfterHosting(apiKey, chargedAlready);
    await h.deps.jobRunner.resumeOrphans();
    const done = await eventually(
      async () => {
        const job = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/images/jobs/${jobId}`, { key: apiKey }));
        return job.status === 'completed' ? job : undefined;
      },
      5_000,
      'the resumed job completed',
    );
    expect(done).toMatchObject({
      cost_usd: 0.08,
      usage: { model: 'imgG-4o', images: 2, size: '1024x1024', output_format: 'png', cost: 0.08 },
    });
    expect(done.images.map((image: { b64_json?: string }) => typeof image.b64_json)).toEqual(['string', 'string']);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(80_000n);
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
    expect(fake.requests.length).toBe(seen);
  });
});

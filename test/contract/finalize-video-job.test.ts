/**
 * POST /v1/llm/videos/jobs/{job_id}/final (SPEC 3.2): the 1080p final of a completed draft, a new job billed
 * separately, possible for 7 days from the draft's kickoff, after the draft's own record expired too, and not after.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { untilTerminal } from '../setup/jobs.js';

// Clips take seconds to encode on this machine, and their polls would use up the default 120 a minute.
const ENV = {
  MEDIA_POLL_MS: '50',
  RATE_LIMIT_PER_KEY_PER_MINUTE: '100000',
  RATE_LIMIT_PER_ACCOUNT_PER_MINUTE: '100000',
};
let h: Harness;
beforeAll(async () => {
  h = await startHarness(ENV);
});
afterAll(() => h.close());

const JOBS = '/v1/llm/videos/jobs';
/** How long a sandbox clip may take to encode on a busy machine (1080p is a few seconds). */
const RENDER_MS = 20_000;
const kickoff = (key: string, body: Record<string, unknown>) =>
  call(h.baseUrl, 'POST', JOBS, { key, body: { prompt: 'A paper boat on a rainy street', ...body } });

describe('POST /v1/llm/videos/jobs/{job_id}/final', () => {
  it('404 for a job that is not a draft, for another account’s draft and for an unknown id; 400 while the draft renders', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 10 });
    const stranger = await h.newAccount(undefined, { balanceUsd: 10 });
    const direct = expectNativeOk(
      await kickoff(owner.apiKey, { model: 'vidA-2-5', duration: 4, resolution: '1080p' }),
      202,
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', `${JOBS}/${direct.job_id}/final`, { key: owner.apiKey }),
      404,
      'job_not_found',
    );
    const draft = expectNativeOk(
      await kickoff(owner.apiKey, { model: 'vidA-2-5', duration: 4, resolution: '480p' }),
      202,
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, { key: owner.apiKey }),
      400,
      'invalid_request',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, { key: stranger.apiKey }),
      404,
      'job_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', `${JOBS}/${newId('job')}/final`, { key: owner.apiKey }),
      404,
      'job_not_found',
    );
    await untilTerminal(h, JOBS, owner.apiKey, draft.job_id, RENDER_MS);
    await untilTerminal(h, JOBS, owner.apiKey, direct.job_id, RENDER_MS);
  }, 30_000);

  it('an Idempotency-Key replays the first answer without charging again', async () => {
    // The operation takes no body and names its draft in the path, so there is no "other body" to send with the key:
    // only the replay half of the contract applies here.
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const draft = await untilTerminal(
      h,
      JOBS,
      apiKey,
      expectNativeOk(await kickoff(apiKey, { model: 'vidA-2-5', duration: 4, resolution: '480p' }), 202).job_id,
      RENDER_MS,
    );
    expect(draft.status).toBe('completed');
    const finalize = () =>
      call(h.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, {
        key: apiKey,
        headers: { 'Idempotency-Key': 'finalize-once' },
      });
    const first = await finalize();
    const final = expectNativeOk(first, 202);
    const replay = await finalize();
    expect(replay.status).toBe(202);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const done = await untilTerminal(h, JOBS, apiKey, final.job_id, RENDER_MS);
    expect(done.status).toBe('completed');
    // One final, charged once: nothing else held, and the balance down by the draft and that final alone.
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: 10_000_000n - usdToMicros(draft.cost_usd) - usdToMicros(done.cost_usd),
    });
  }, 30_000);

  it('a draft has one final: calls at once or later answer the first final (200), charged once', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const draft = await untilTerminal(
      h,
      JOBS,
      apiKey,
      expectNativeOk(await kickoff(apiKey, { model: 'vidA-2-5', duration: 4, resolution: '480p' }), 202).job_id,
      RENDER_MS,
    );
    const finalize = () => call(h.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, { key: apiKey });
    const answers = await Promise.all(Array.from({ length: 6 }, finalize));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 202]);
    const ids = new Set(answers.map((answer) => expectNativeOk(answer, answer.status).job_id));
    expect(ids.size).toBe(1);
    const [finalId] = [...ids] as [string];
    const done = await untilTerminal(h, JOBS, apiKey, finalId, RENDER_MS);
    expect(expectNativeOk(await finalize(), 200)).toMatchObject({
      job_id: finalId,
      status: 'completed',
      cost_usd: done.cost_usd,
    });
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: 10_000_000n - usdToMicros(draft.cost_usd) - usdToMicros(done.cost_usd),
    });
    // Two hours on, the final's record is gone; the draft's final is spent, not made again.
    await h.deps.jobs.expire((await h.deps.jobs.get(finalId, h.deps.now()))!.expiresAtMs);
    expectNativeError(await finalize(), 404, 'job_not_found');
  }, 30_000);

  it('a final that could not start (402) leaves the draft finalisable', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const draft = await untilTerminal(
      h,
      JOBS,
      apiKey,
      expectNativeOk(await kickoff(apiKey, { model: 'vidA-2-5', duration: 4, resolution: '480p' }), 202).job_id,
      RENDER_MS,
    );
    const finalize = () => call(h.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, { key: apiKey });
    expectNativeError(await finalize(), 402, 'insufficient_balance');
    await h.topUp(accountId, 5);
    const final = expectNativeOk(await finalize(), 202);
    expect((await untilTerminal(h, JOBS, apiKey, final.job_id, RENDER_MS)).status).toBe('completed');
  }, 30_000);

  it('a claim whose kickoff died before creating its job is waited for, then taken over 30 s after it was made', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const draft = await untilTerminal(
      h,
      JOBS,
      apiKey,
      expectNativeOk(await kickoff(apiKey, { model: 'vidA-2-5', duration: 4, resolution: '480p' }), 202).job_id,
      RENDER_MS,
    );
    const ghost = newId('job');
    const claim = { final_job_id: ghost, final_claimed_at_ms: h.deps.now() - 29_000, final_started: false };
    expect(
      await h.deps.jobs.transition(`${draft.job_id}.draft`, ['completed'], { data: claim }, h.deps.now()),
    ).not.toBeNull();
    const final = expectNativeOk(await call(h.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, { key: apiKey }), 202);
    // Not before the claim was 30 s old.
    expect(h.deps.now()).toBeGreaterThanOrEqual(claim.final_claimed_at_ms + 30_000);
    expect(final.job_id).not.toBe(ghost);
    expect((await untilTerminal(h, JOBS, apiKey, final.job_id, RENDER_MS)).status).toBe('completed');
  }, 30_000);

  it('works after the draft’s record and files expired (2 h), with the draft’s start frame, within 7 days, and not after', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const frame = await sharp({ create: { width: 16, height: 9, channels: 3, background: { r: 90, g: 90, b: 250 } } })
      .png()
      .toBuffer();
    const draft = expectNativeOk(
      await kickoff(apiKey, {
        model: 'vidA-2-5',
        duration: 4,
        resolution: '480p',
        image_url: `data:image/png;base64,${frame.toString('base64')}`,
      }),
      202,
    );
    await untilTerminal(h, JOBS, apiKey, draft.job_id, RENDER_MS);
    const record = await h.deps.jobs.get(draft.job_id, h.deps.now());
    // Two hours on: the draft's record and its clip are gone, while the draft stays finalisable with its inputs.
    await h.deps.jobs.expire(record!.expiresAtMs);
    await h.deps.blobs.sweep(record!.expiresAtMs);
    expect(await h.deps.blobs.get(`${draft.job_id}-0.mp4`, record!.expiresAtMs)).toBeNull();
    expect(await h.deps.blobs.get(`${draft.job_id}-in-0.png`, record!.expiresAtMs)).not.toBeNull();
    expectNativeError(await call(h.baseUrl, 'GET', `${JOBS}/${draft.job_id}`, { key: apiKey }), 404, 'job_not_found');
    const final = expectNativeOk(await call(h.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, { key: apiKey }), 202);
    expect((await untilTerminal(h, JOBS, apiKey, final.job_id, RENDER_MS)).status).toBe('completed');
    // Seven days after the draft's kickoff.
    await h.deps.jobs.expire(record!.createdAtMs + 7 * 24 * 3600_000);
    expectNativeError(
      await call(h.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, { key: apiKey }),
      404,
      'job_not_found',
    );
  }, 30_000);
});

describe('a draft has one final across two gateway processes on one PostgreSQL', () => {
  let instances: Harness[] = [];
  let drop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const opened = await HARNESS_DATABASES.find((database) => database.name === 'PostgreSQL')!.open();
    drop = opened.drop;
    instances = [await startHarness({ ...opened.env, ...ENV }), await startHarness({ ...opened.env, ...ENV })];
  });
  afterAll(async () => {
    for (const instance of instances) await instance.close();
    await drop();
  });

  it('calls at once to both answer one final job, charged once', async () => {
    const [one, two] = instances as [Harness, Harness];
    const { accountId, apiKey } = await one.newAccount(undefined, { balanceUsd: 10 });
    const kicked = expectNativeOk(
      await call(one.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'vidA-2-5', prompt: 'A paper boat', duration: 4, resolution: '480p' },
      }),
      202,
    );
    const draft = await untilTerminal(one, JOBS, apiKey, kicked.job_id, RENDER_MS);
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(instances[i % 2]!.baseUrl, 'POST', `${JOBS}/${draft.job_id}/final`, { key: apiKey }),
      ),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 202]);
    const ids = new Set(answers.map((answer) => expectNativeOk(answer, answer.status).job_id));
    expect(ids.size).toBe(1);
    const done = await untilTerminal(two, JOBS, apiKey, [...ids][0]!, RENDER_MS);
    expect(done.status).toBe('completed');
    expect(await one.deps.ledger.getBalance(accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: 10_000_000n - usdToMicros(draft.cost_usd) - usdToMicros(done.cost_usd),
    });
  }, 40_000);
});

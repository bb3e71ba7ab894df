/**
 * POST /v1/llm/music/jobs (SPEC 3.1, 4.4) on the embedded sandbox: real MP3 tracks, charged by their measured
 * length up to the length asked; bad requests are 400 naming the field with nothing held.
 */
import { parseBuffer } from 'music-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { untilTerminal } from '../setup/jobs.js';
import { micros } from '../setup/money.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MEDIA_POLL_MS: '50' });
});
afterAll(() => h.close());

const JOBS = '/v1/llm/music/jobs';

async function decoded(
  link: string,
): Promise<{ type: string | null; duration: number | undefined; container: string | undefined }> {
  const { type, bytes } = await fetchHosted(h, link);
  const { format } = await parseBuffer(bytes, { mimeType: type ?? undefined });
  return { type, duration: format.duration, container: format.container };
}

describe('POST /v1/llm/music/jobs', () => {
  it('an MP3 a little longer than asked (encoder padding) is charged the length asked, not more', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const job = expectNativeOk(
      await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'stable-audio-2-5', prompt: 'Calm piano', duration: 3 },
      }),
      202,
    );
    const done = await untilTerminal(h, JOBS, apiKey, job.job_id);
    expect(done.outputs).toEqual([expect.objectContaining({ mime_type: 'audio/mpeg', format: 'mp3' })]);
    const file = await decoded(done.outputs[0].url);
    expect(file.duration).toBeGreaterThan(3);
    expect(done.usage).toMatchObject({ units: 3, cost: job.estimated_cost_usd });
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(micros(job.estimated_cost_usd));
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', JOBS, { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const first = { model: 'stable-audio-2-5', prompt: 'Calm piano', duration: 3 };
    const firstAnswer = await expectIdempotencyContract(
      send,
      { first, other: { ...first, prompt: 'Upbeat drums' } },
      'native',
      202,
    );
    const done = await untilTerminal(h, JOBS, apiKey, expectNativeOk(firstAnswer, 202).job_id);
    expect(done.status).toBe('completed');
    // One job, charged once: nothing else held, and the balance down by its cost alone.
    expect(await h.deps.ledger.getBalance(accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: 1_000_000n - micros(done.cost_usd),
    });
  });

  it('400 invalid_request naming the field, nothing held: a duration outside the range, a container the model lacks', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    for (const [body, field, says] of [
      [{ duration: 10 }, 'duration', /30 to 480/],
      [{ output_format: 'flac' }, 'output_format', /mp3, wav/],
    ] as const) {
      const response = await call(h.baseUrl, 'POST', JOBS, {
        key: apiKey,
        body: { model: 'suno-v5', prompt: 'x', ...body },
      });
      expectNativeError(response, 400, 'invalid_request');
      expect(response.body.data.meta.fields[0].loc).toEqual(['body', field]);
      expect(response.body.data.error).toMatch(says);
    }
    expectNativeError(
      await call(h.baseUrl, 'POST', JOBS, { key: apiKey, body: { model: 'tts-1', prompt: 'x' } }),
      400,
      'model_not_found',
    );
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });
});

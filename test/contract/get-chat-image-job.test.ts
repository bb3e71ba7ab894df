/**
 * GET /v1/llm/chats/{chat_id}/image-jobs/{job_id} (SPEC 4.2) against a slow OpenAI-style images fake: polls within
 * 2 seconds share one look (a render finished meanwhile shows at the next window), `completed` rewrites the
 * placeholder with the image and is charged once, `failed` marks it and charges nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { type FakeBehaviour, type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { pollUntil } from '../setup/polling.js';
import { sleep } from '../setup/time.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

let h: Harness;
let fake: FakeUpstream;
let behaviour: FakeBehaviour = 'ok';

beforeAll(async () => {
  fake = await startFakeUpstream({ behaviour: () => behaviour });
  const upstreams = writeUpstreamsFile(
    { 'imgG-4o': [{ provider: 'images', type: 'openai-images', url: fake.baseUrl, cost: { perRequest: 0.01 } }] },
    { sandboxDefault: true },
  );
  h = await startHarness({ UPSTREAMS_FILE: upstreams });
});
afterAll(async () => {
  await h?.close();
  await fake?.close();
  removeUpstreamsFiles();
});

async function imageMessage(key: string): Promise<{ chatId: string; jobId: string; dialogueId: string }> {
  const chatId = expectNativeOk(await call(h.baseUrl, 'POST', '/v1/llm/chats', { key }), 201).chat_id;
  const reply = expectNativeOk(
    await call(h.baseUrl, 'POST', `/v1/llm/chats/${chatId}/messages`, {
      key,
      body: { model: 'imgG-4o', content: 'A lighthouse at dawn' },
    }),
  );
  return { chatId, jobId: reply.job_id, dialogueId: reply.dialogue_id };
}

const poll = (key: string, chatId: string, jobId: string) =>
  call(h.baseUrl, 'GET', `/v1/llm/chats/${chatId}/image-jobs/${jobId}`, { key });

describe('GET /v1/llm/chats/{chat_id}/image-jobs/{job_id}', () => {
  it('coalesces polls in 2 s; completed rewrites the placeholder with the image, charged once', async () => {
    behaviour = { slowFirstByteMs: 400 };
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const { chatId, jobId, dialogueId } = await imageMessage(apiKey);
    const early = expectNativeOk(await poll(apiKey, chatId, jobId));
    expect(early).toMatchObject({ job_id: jobId, chat_id: chatId, dialogue_id: dialogueId });
    expect(['pending', 'processing']).toContain(early.status);
    // The render is done well within the window, but polls inside it share the first look.
    await pollUntil(
      () => h.deps.jobs.get(jobId, h.deps.now()),
      (job) => job?.status === 'completed',
      { withinMs: 2_000 },
    );
    expect(expectNativeOk(await poll(apiKey, chatId, jobId)).status).toBe(early.status);
    await sleep(2_000);
    const done = expectNativeOk(await poll(apiKey, chatId, jobId));
    expect(done).toMatchObject({
      status: 'completed',
      model: 'imgG-4o',
      cost_usd: 0.04,
      image: { url: expect.stringContaining('/v1/files/'), mime_type: 'image/png' },
    });
    const { dialogues } = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${chatId}`, { key: apiKey }));
    expect(dialogues[1]).toMatchObject({ dialogue_id: dialogueId, type: 'image', image: done.image, job_id: jobId });
    await sleep(2_000);
    expect(expectNativeOk(await poll(apiKey, chatId, jobId))).toEqual(done);
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(40_000n);
  }, 20_000);

  it('failed marks the placeholder and charges nothing', async () => {
    behaviour = { status: 500 };
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const { chatId, jobId } = await imageMessage(apiKey);
    let job: any;
    for (let i = 0; i < 10 && job?.status !== 'failed'; i++) {
      await sleep(i === 0 ? 300 : 2_050);
      job = expectNativeOk(await poll(apiKey, chatId, jobId));
    }
    expect(job).toMatchObject({ status: 'failed', error_code: 'generation_failed' });
    const { dialogues } = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/llm/chats/${chatId}`, { key: apiKey }));
    expect(dialogues[1]).toMatchObject({ type: 'image_failed', content: job.error });
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  }, 30_000);

  it('404: chat_not_found for another account’s chat; job_not_found for a job that is not the chat’s', async () => {
    behaviour = 'ok';
    const owner = await h.newAccount(undefined, { balanceUsd: 1 });
    const stranger = await h.newAccount();
    const { chatId, jobId } = await imageMessage(owner.apiKey);
    expectNativeError(await poll(stranger.apiKey, chatId, jobId), 404, 'chat_not_found');
    expectNativeError(await poll(owner.apiKey, chatId, newId('job')), 404, 'job_not_found');
    const other = expectNativeOk(await call(h.baseUrl, 'POST', '/v1/llm/chats', { key: owner.apiKey }), 201).chat_id;
    expectNativeError(await poll(owner.apiKey, other, jobId), 404, 'job_not_found');
  });
});

/**
 * Verdicts the route table gives before any upstream is called (SPEC 7.2): a disabled model, and a stream
 * request when only non-streaming upstreams serve the model. Nothing is charged for either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

let fake: FakeUpstream;
let h: Harness;
let apiKey: string;
let accountId: string;

beforeAll(async () => {
  fake = await startFakeUpstream();
  const file = writeUpstreamsFile(
    { 'gpt-5-mini': [{ provider: 'batch-only', url: fake.baseUrl, streams: false }] },
    { sandboxDefault: true, disabledModels: ['gpt-4o'] },
  );
  h = await startHarness({ UPSTREAMS_FILE: file });
  ({ apiKey, accountId } = await h.newAccount(undefined, { balanceUsd: 5 }));
});
afterAll(async () => {
  await h.close();
  await fake.close();
  removeUpstreamsFiles();
});

const chat = (body: Record<string, unknown>) =>
  call(h.baseUrl, 'POST', '/v1/compat/chat/completions', {
    key: apiKey,
    body: { messages: [{ role: 'user', content: 'hi' }], ...body },
  });

describe('route verdicts before dispatch', () => {
  it('503 model_disabled for a model disabled platform-wide, and nothing is called or charged', async () => {
    const response = await chat({ model: 'gpt-4o' });
    expectCompatError(response, 503, 'model_disabled');
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  it('503 no_streaming_upstream when only non-streaming upstreams serve the model and stream: true was sent', async () => {
    const before = fake.requests.length;
    expectCompatError(await chat({ model: 'gpt-5-mini', stream: true }), 503, 'no_streaming_upstream');
    expect(fake.requests.length).toBe(before);
    expect((await h.deps.ledger.getBalance(accountId)).heldMicros).toBe(0n);
  });

  it('the same model without stream is served by that upstream', async () => {
    const response = await chat({ model: 'gpt-5-mini' });
    expect(response.status, response.text).toBe(200);
    expect(fake.requests.at(-1)?.body).toMatchObject({ model: 'batch-only/gpt-5-mini', stream: false });
  });
});

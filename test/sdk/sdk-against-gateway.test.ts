/**
 * packages/sdk against a live gateway: typed calls, errors as GatewayError with the envelope's code and request
 * id, chat and Responses streams, an error frame from an upstream that died mid-answer (SPEC 6.2), a media job
 * polled to completion, and a session that refreshes itself.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ComputeGateway,
  getAccount,
  getModelCatalog,
  listApiKeys,
  listOffers,
  resumeSession,
} from '../../packages/sdk/src/index.js';
import { type FakeBehaviour, type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { type AccountsHarness, signedUpSession, startAccountsHarness } from '../setup/accounts.js';
import { gatewayFailure } from '../setup/gateway-error.js';
import { fetchHosted } from '../setup/hosted-files.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const FLAKY_MODEL = 'gpt-5-nano';
let h: AccountsHarness;
let fake: FakeUpstream;
let behaviour: FakeBehaviour = 'ok';
let gateway: ComputeGateway;

beforeAll(async () => {
  fake = await startFakeUpstream({ behaviour: () => behaviour });
  const upstreams = writeUpstreamsFile(
    { [FLAKY_MODEL]: [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 1 } }] },
    { sandboxDefault: true },
  );
  h = await startAccountsHarness({ UPSTREAMS_FILE: upstreams });
  const { apiKey } = await h.newAccount(undefined, { balanceUsd: 50 });
  gateway = new ComputeGateway({ baseUrl: h.baseUrl, apiKey, retry: { maxRetries: 0 } });
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  removeUpstreamsFiles();
});

describe('calls', () => {
  it('answers typed bodies, with and without a key', async () => {
    const catalog = await new ComputeGateway({ baseUrl: h.baseUrl }).call(getModelCatalog);
    expect(catalog.data.models.length).toBeGreaterThanOrEqual(370);
    const offers = await gateway.call(listOffers, { query: { limit: 5 } });
    expect(offers.data.total).toBeGreaterThanOrEqual(offers.data.offers.length);
  });

  it('throws the native envelope as GatewayError with code, request id and retryable', async () => {
    const stranger = new ComputeGateway({ baseUrl: h.baseUrl, apiKey: 'cgw_not_a_key_at_all_000000000000' });
    const error = await gatewayFailure(() => stranger.call(listApiKeys));
    expect(error.status).toBe(401);
    expect(error.code).toMatch(/^(invalid_api_key|api_key_not_found)$/);
    expect(error.requestId).toMatch(/\S/);
    expect(error.retryable).toBe(false);
  });
});

describe('streams', () => {
  it('iterates a native chat stream to its end', async () => {
    let text = '';
    for await (const chunk of gateway.streamChat({
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'Say something' }],
    })) {
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text.length).toBeGreaterThan(0);
  });

  it('iterates a Responses stream through response.completed', async () => {
    const types: string[] = [];
    for await (const event of gateway.streamResponse({ model: 'gpt-5-mini', input: 'Say something' })) {
      types.push(event.type);
    }
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
  });

  it('throws the error frame of a stream whose upstream died mid-answer', async () => {
    behaviour = { dieAfterChunks: 2 };
    let text = '';
    const error = await gatewayFailure(async () => {
      for await (const chunk of gateway.streamChat({ model: FLAKY_MODEL, messages: [{ role: 'user', content: 'hi' }] }))
        text += chunk.choices[0]?.delta.content ?? '';
    });
    behaviour = 'ok';
    expect(text.length).toBeGreaterThan(0);
    expect(error.code).toBe('upstream_error');
    expect(error.status).toBe(200);
    expect(error.requestId).toMatch(/\S/);
  });

  it('stops reading and closes when the caller aborts', async () => {
    behaviour = { stallAfterChunks: 1 };
    const controller = new AbortController();
    const error = await gatewayFailure(async () => {
      for await (const _ of gateway.streamChat(
        { model: FLAKY_MODEL, messages: [{ role: 'user', content: 'hi' }] },
        { signal: controller.signal },
      ))
        controller.abort();
    });
    behaviour = 'ok';
    expect(error.code).toBe('aborted');
  });
});

describe('jobs', () => {
  it('runs an image job to completion, reporting progress', async () => {
    const seen: string[] = [];
    const job = await gateway.runJob(
      'image',
      { model: 'imgG-4o', prompt: 'Fog over a harbour' },
      { intervalMs: 100, onProgress: (record) => seen.push(record.status), timeoutMs: 60_000 },
    );
    expect(job.status).toBe('completed');
    expect(seen.at(-1)).toBe('completed');
    const file = await fetchHosted(h, job.images?.[0]?.url ?? '');
    expect(file.type).toMatch(/^image\//);
  });

  it('stops waiting when the signal fires', async () => {
    const job = await gateway.startJob('image', { model: 'imgG-4o', prompt: 'Slow harbour' });
    const controller = new AbortController();
    controller.abort();
    const error = await gatewayFailure(() => gateway.waitForJob('image', job.job_id, { signal: controller.signal }));
    expect(error.code).toBe('aborted');
  });
});

describe('sessions', () => {
  it('refreshes the access token before it expires and reports the new pair', async () => {
    const session = await signedUpSession(h);
    const pairs: string[] = [];
    const gatewayOfPerson = resumeSession(
      {
        access_token: session.access_token,
        refresh_token: session.refresh_token,
        token_type: 'Bearer',
        expires_in: 1, // already inside the refresh margin: the first call refreshes
        refresh_expires_in: 3600,
        session: session.session as never,
      },
      { baseUrl: h.baseUrl, onTokens: (tokens) => pairs.push(tokens.access_token ?? '') },
    );
    const [one, two] = await Promise.all([gatewayOfPerson.call(getAccount), gatewayOfPerson.call(getAccount)]);
    expect(one.data.account_id).toMatch(/\S/);
    expect(two.data.account_id).toBe(one.data.account_id);
    expect(pairs).toHaveLength(1);
    expect(pairs[0]).not.toBe(session.access_token);
  });
});

/**
 * SPEC 6.2 as the client libraries see it: a `stream: true` chat whose every upstream fails before its first
 * token opens (200, SSE) and ends with one error frame whose type/code follow the upstreams' status, then
 * `[DONE]` (docs/decisions.md). What the official `openai` client, the AI SDK and LangChain raise for it: the
 * error class each gives an error carried by a stream, with the frame's code, never a silent empty answer.
 */

import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { ChatOpenAI } from '@langchain/openai';
import { APICallError, streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type FakeBehaviour, type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { type Harness, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const MODEL = 'gpt-5-mini';
let fakes: FakeUpstream[] = [];
let behaviour: FakeBehaviour = 'ok';
let h: Harness;
let apiKey: string;

beforeAll(async () => {
  fakes = [
    await startFakeUpstream({ behaviour: () => behaviour }),
    await startFakeUpstream({ behaviour: () => behaviour }),
  ];
  const upstreams = writeUpstreamsFile({
    [MODEL]: fakes.map((fake, i) => ({
      provider: `fake-${i}`,
      url: fake.baseUrl,
      cost: { input: 0.1 * (i + 1), output: 1 },
    })),
  });
  h = await startHarness({ UPSTREAMS_FILE: upstreams });
  ({ apiKey } = await h.newAccount(undefined, { balanceUsd: 100 }));
});

afterAll(async () => {
  await h?.close();
  for (const fake of fakes) await fake.close();
  removeUpstreamsFiles();
});

const baseURL = () => `${h.baseUrl}/v1/compat`;

async function openaiFailure(): Promise<unknown> {
  const client = new OpenAI({ apiKey, baseURL: baseURL(), maxRetries: 0 });
  try {
    const stream = await client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    for await (const _ of stream) void _;
  } catch (err) {
    return err;
  }
  throw new Error('expected the stream to fail');
}

/** Every error part of an AI SDK stream, and the text it delivered. */
async function aiSdkErrors(
  model: Parameters<typeof streamText>[0]['model'],
): Promise<{ errors: unknown[]; text: string }> {
  const errors: unknown[] = [];
  const result = streamText({ model, prompt: 'hi', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
  let text = '';
  for await (const part of result.fullStream) if (part.type === 'text-delta') text += part.text;
  return { errors, text };
}

async function langchainFailure(): Promise<unknown> {
  const chat = new ChatOpenAI({ model: MODEL, apiKey, configuration: { baseURL: baseURL() }, maxRetries: 0 });
  try {
    for await (const _ of await chat.stream('hi')) void _;
  } catch (err) {
    return err;
  }
  throw new Error('expected the stream to fail');
}

/** The upstreams' answer, the frame's type and code, and the status @ai-sdk/openai reads back from them. */
const cases: [string, FakeBehaviour, string, string, number][] = [
  ['429', { status: 429 }, 'rate_limit_error', 'rate_limit_exceeded', 429],
  ['400', { status: 400 }, 'invalid_request_error', 'invalid_request', 400],
  ['404', { status: 404 }, 'invalid_request_error', 'model_not_found', 404],
  ['503', { status: 503 }, 'api_error', 'upstream_server_error', 500],
];

describe.each(cases)(
  'every upstream answering %s before the first token',
  (_name, failing, type, code, aiSdkStatus) => {
    beforeEach(() => void (behaviour = failing));

    it(`openai: the stream raises APIError (the class of a stream-borne error) with type ${type}, code ${code} and the request id`, async () => {
      const err = await openaiFailure();
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect((err as object).constructor).toBe(OpenAI.APIError);
      expect(err).toMatchObject({ status: undefined, type, code, requestID: expect.stringMatching(/^req_/) });
    });

    it(`AI SDK (@ai-sdk/openai): one APICallError with status ${aiSdkStatus}, retryable as that status is; no text`, async () => {
      const { errors, text } = await aiSdkErrors(createOpenAI({ baseURL: baseURL(), apiKey }).chat(MODEL));
      expect(text).toBe('');
      expect(errors).toHaveLength(1);
      expect(APICallError.isInstance(errors[0])).toBe(true);
      const err = errors[0] as APICallError;
      expect(err.statusCode).toBe(aiSdkStatus);
      expect(err.isRetryable).toBe(aiSdkStatus === 429 || aiSdkStatus >= 500);
      expect(err.data).toMatchObject({ type, code });
    });

    it('AI SDK (@ai-sdk/openai-compatible): one error part carrying the frame', async () => {
      const { errors, text } = await aiSdkErrors(
        createOpenAICompatible({ name: 'gateway', baseURL: baseURL(), apiKey }).chatModel(MODEL),
      );
      expect(text).toBe('');
      expect(errors).toEqual([expect.objectContaining({ type, code })]);
    });

    it(`LangChain ChatOpenAI.stream: rejects with the openai APIError, code ${code}`, async () => {
      const err = await langchainFailure();
      expect(err).toBeInstanceOf(OpenAI.APIError);
      expect(err).toMatchObject({ type, code });
    });
  },
);

describe('verdicts on the request itself stay plain HTTP errors on a stream', () => {
  it('an unknown model is still a BadRequestError with code model_not_found, before any upstream is asked', async () => {
    const client = new OpenAI({ apiKey, baseURL: baseURL(), maxRetries: 0 });
    const err = await client.chat.completions
      .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'hi' }], stream: true })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({ status: 400, code: 'model_not_found' });
  });
});

/**
 * The OpenAI Agents SDK (`@openai/agents` 0.14, the last release on the `openai` 6 line that runs on Node 20)
 * against a live gateway: its default model is the Responses API, so an agent's run, a streamed run and a tool
 * round trip exercise `/v1/compat/responses`, streamed and not. Text comes from the embedded sandbox; tool calls
 * from a local fake OpenAI-style upstream routed for one model. Tracing (an export to OpenAI) is turned off.
 */
import { Agent, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type FakeBehaviour, type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { type Harness, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const TEXT_MODEL = 'gpt-5-mini';
/** Routed to the fake, which calls the tool on the first turn and answers on the next. */
const TOOL_MODEL = 'gpt-4o-mini';

let fake: FakeUpstream;
let turns: FakeBehaviour[] = [];
let h: Harness;
let apiKey: string;

beforeAll(async () => {
  setTracingDisabled(true);
  fake = await startFakeUpstream({ behaviour: () => turns.shift() ?? 'ok' });
  const upstreams = writeUpstreamsFile(
    { [TOOL_MODEL]: [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 0.3 } }] },
    { sandboxDefault: true },
  );
  h = await startHarness({ UPSTREAMS_FILE: upstreams });
  ({ apiKey } = await h.newAccount(undefined, { balanceUsd: 100 }));
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  removeUpstreamsFiles();
});

const client = (key = apiKey) => new OpenAI({ baseURL: `${h.baseUrl}/v1/compat`, apiKey: key, maxRetries: 0 });
const agent = (model: string, key = apiKey, tools: ReturnType<typeof tool>[] = []) =>
  new Agent({
    name: 'assistant',
    instructions: 'Be brief.',
    model: new OpenAIResponsesModel(client(key), model),
    tools,
  });

const weather = () =>
  tool({
    name: 'get_weather',
    description: 'Weather in a city',
    parameters: z.object({ city: z.string() }),
    execute: async ({ city }) => `${city}: -3 °C`,
  });

describe('Agents SDK over the Responses API', () => {
  it('run: the final output is the model’s text; usage is counted', async () => {
    const result = await run(agent(TEXT_MODEL), 'Say hello.');
    expect(result.finalOutput).toMatch(/^Sandbox reply \(gpt-5-mini\): \S/);
    expect(result.state.usage.outputTokens).toBeGreaterThan(0);
  });

  it('run with stream: the text stream joins to the final output', async () => {
    const result = await run(agent(TEXT_MODEL), 'Tell me about gateways.', { stream: true });
    let joined = '';
    for await (const delta of result.toTextStream()) joined += delta;
    await result.completed;
    expect(joined.length).toBeGreaterThan(0);
    expect(result.finalOutput).toBe(joined);
  });

  it('a tool round trip, streamed: the call, the tool’s output sent back, then the answer', async () => {
    turns = [{ reply: { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] } }, 'ok'];
    const before = fake.requests.length;
    const result = await run(agent(TOOL_MODEL, apiKey, [weather()]), 'Weather in Oslo?', { stream: true });
    for await (const _ of result.toStream()) void _;
    await result.completed;
    expect(result.finalOutput).toBe('chunk1 chunk2 chunk3 ');
    const [first, second] = fake.requests.slice(before).map((r) => r.body as Record<string, any>);
    expect(first!.stream).toBe(true);
    expect(first!.tools).toEqual([
      expect.objectContaining({ type: 'function', function: expect.objectContaining({ name: 'get_weather' }) }),
    ]);
    expect(second!.messages).toContainEqual({ role: 'tool', tool_call_id: 'call_w1', content: 'Oslo: -3 °C' });
  });

  it('the chat-completions model works too', async () => {
    const chatAgent = new Agent({ name: 'assistant', model: new OpenAIChatCompletionsModel(client(), TEXT_MODEL) });
    const result = await run(chatAgent, 'Say hello.');
    expect(result.finalOutput).toMatch(/^Sandbox reply/);
  });
});

describe('Agents SDK: errors are the openai SDK’s classes', () => {
  it('401 → AuthenticationError', async () => {
    await expect(run(agent(TEXT_MODEL, 'cgw_not_a_real_key'), 'hi')).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('402 → APIError with status 402 and code insufficient_balance', async () => {
    const broke = await h.newAccount();
    const err = await run(agent(TEXT_MODEL, broke.apiKey), 'hi').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ status: 402, code: 'insufficient_balance' });
  });

  it('429 → RateLimitError', async () => {
    const limited = await h.newAccount(undefined, { balanceUsd: 10 });
    await h.deps.apiKeys.setKeyRateLimit(limited.keyId, 1);
    h.deps.authenticator.invalidate({ keyId: limited.keyId });
    await run(agent(TEXT_MODEL, limited.apiKey), 'hi');
    await expect(run(agent(TEXT_MODEL, limited.apiKey), 'hi')).rejects.toBeInstanceOf(OpenAI.RateLimitError);
  });

  it('context overflow → BadRequestError, code context_window_exceeded, "maximum context length"', async () => {
    const err = await run(agent('gemma-2-9b-it'), 'lorem ipsum '.repeat(6000)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err).toMatchObject({
      code: 'context_window_exceeded',
      message: expect.stringContaining('maximum context length'),
    });
  });
});

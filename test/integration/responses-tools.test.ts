/**
 * The Responses API's function tools over chat completions, against a fake OpenAI-style upstream that calls a
 * tool: the tools, tool_choice and text.format the upstream receives, the `function_call` items the caller gets,
 * and the second turn (`function_call` + `function_call_output` items) as the assistant tool_calls and tool
 * messages the upstream needs. With the AI SDK's default `openai(id)` model (Responses) and the official `openai`
 * client's `responses.stream`, streamed and not.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, jsonSchema, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeBehaviour, type FakeUpstream, startFakeUpstream } from '../fixtures/fake-upstream.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';

const MODEL = 'gpt-5-mini';
const WEATHER_TOOL = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const TOOL_CALL_ANSWER: FakeBehaviour = {
  reply: { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' }] },
};

let fake: FakeUpstream;
let behaviour: FakeBehaviour = 'ok';
let h: Harness;
let apiKey: string;

beforeAll(async () => {
  fake = await startFakeUpstream({ behaviour: () => behaviour });
  h = await startHarness({
    UPSTREAMS_FILE: writeUpstreamsFile({
      [MODEL]: [{ provider: 'fake', url: fake.baseUrl, cost: { input: 0.1, output: 1 } }],
    }),
  });
  ({ apiKey } = await h.newAccount(undefined, { balanceUsd: 10 }));
});

afterAll(async () => {
  await h?.close();
  await fake?.close();
  removeUpstreamsFiles();
});

const respond = (body: unknown) => call(h.baseUrl, 'POST', '/v1/compat/responses', { key: apiKey, body });
const lastUpstreamBody = () => fake.requests.at(-1)!.body as Record<string, unknown>;

describe('Responses function tools', () => {
  it('first turn: tools and tool_choice reach the upstream as chat tools; its tool call comes back as a function_call item', async () => {
    behaviour = TOOL_CALL_ANSWER;
    const response = await respond({
      model: MODEL,
      input: 'Weather in Oslo?',
      tools: [WEATHER_TOOL],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(response.status, response.text).toBe(200);
    expect(lastUpstreamBody()).toMatchObject({
      tools: [
        {
          type: 'function',
          function: { name: 'get_weather', description: 'Weather in a city', parameters: WEATHER_TOOL.parameters },
        },
      ],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    });
    expect(response.body.output).toEqual([
      {
        type: 'function_call',
        id: expect.stringMatching(/^fc_/),
        call_id: 'call_w1',
        name: 'get_weather',
        arguments: '{"city":"Oslo"}',
        status: 'completed',
      },
    ]);
    expect(response.body.output_text).toBe('');
  });

  it('second turn: function_call and function_call_output items become the assistant tool_calls and the tool message', async () => {
    behaviour = 'ok';
    const response = await respond({
      model: MODEL,
      instructions: 'Be brief.',
      input: [
        { role: 'user', content: 'Weather in Oslo?' },
        { type: 'function_call', call_id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_w1', output: '{"temp_c":-3}' },
      ],
      tools: [WEATHER_TOOL],
      tool_choice: { type: 'function', name: 'get_weather' },
    });
    expect(response.status, response.text).toBe(200);
    expect(lastUpstreamBody()).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Weather in Oslo?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_w1', content: '{"temp_c":-3}' },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(response.body.output[0]).toMatchObject({ type: 'message', role: 'assistant' });
    expect(response.body.output_text.length).toBeGreaterThan(0);
  });

  it('text.format json_schema reaches the upstream as response_format; reasoning.effort as reasoning_effort', async () => {
    behaviour = 'ok';
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'] };
    const response = await respond({
      model: MODEL,
      input: 'hi',
      text: { format: { type: 'json_schema', name: 'reply', schema, strict: true } },
      reasoning: { effort: 'low' },
    });
    expect(response.status, response.text).toBe(200);
    expect(lastUpstreamBody()).toMatchObject({
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } },
      reasoning_effort: 'low',
    });
  });
});

/** The answers of a two-turn exchange: a tool call, then text; each model request takes the next. */
function twoTurns(): () => void {
  const answers: FakeBehaviour[] = [TOOL_CALL_ANSWER, 'ok'];
  let turn = 0;
  const next = () => void (behaviour = answers[Math.min(turn++, answers.length - 1)]!);
  next();
  return next;
}

const weatherTool = (onCall: () => void) =>
  tool({
    description: 'Weather in a city',
    inputSchema: jsonSchema<{ city: string }>({
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    }),
    execute: async ({ city }) => {
      onCall();
      return { city, tempC: -3 };
    },
  });

describe('the AI SDK default openai(id) model (Responses API) at /v1/compat', () => {
  const openai = () => createOpenAI({ baseURL: `${h.baseUrl}/v1/compat`, apiKey });
  const toolResultReachedUpstream = () =>
    expect(lastUpstreamBody().messages).toContainEqual(
      expect.objectContaining({ role: 'tool', tool_call_id: 'call_w1', content: expect.stringContaining('-3') }),
    );

  it('generateText with a tool: the call, then the answer after the tool result', async () => {
    const next = twoTurns();
    const result = await generateText({
      model: openai()(MODEL),
      prompt: 'Weather in Oslo?',
      tools: { get_weather: weatherTool(next) },
      stopWhen: ({ steps }) => steps.length >= 2,
      maxRetries: 0,
    });
    expect(result.steps[0]!.toolCalls).toMatchObject([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
    expect(result.text.length).toBeGreaterThan(0);
    toolResultReachedUpstream();
  });

  it('streamText with a tool: the streamed call, then the streamed answer', async () => {
    const next = twoTurns();
    const result = streamText({
      model: openai()(MODEL),
      prompt: 'Weather in Oslo?',
      tools: { get_weather: weatherTool(next) },
      stopWhen: ({ steps }) => steps.length >= 2,
      maxRetries: 0,
    });
    let joined = '';
    for await (const delta of result.textStream) joined += delta;
    const steps = await result.steps;
    expect(steps[0]!.toolCalls).toMatchObject([{ toolName: 'get_weather', input: { city: 'Oslo' } }]);
    expect(joined).toBe('chunk1 chunk2 chunk3 ');
    expect(fake.requests.at(-1)!.body).toMatchObject({ stream: true });
    toolResultReachedUpstream();
  });
});

describe('the official openai client: responses.stream with a function tool', () => {
  it('the function_call item, then function_call_output sent back and the answer', async () => {
    const client = new OpenAI({ baseURL: `${h.baseUrl}/v1/compat`, apiKey, maxRetries: 0 });
    const tools = [{ ...WEATHER_TOOL, type: 'function' as const, strict: false }];
    const next = twoTurns();
    const first = await client.responses.stream({ model: MODEL, input: 'Weather in Oslo?', tools }).finalResponse();
    const call = first.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ call_id: 'call_w1', name: 'get_weather', arguments: '{"city":"Oslo"}' });
    next();
    const second = await client.responses
      .stream({
        model: MODEL,
        tools,
        input: [
          { role: 'user', content: 'Weather in Oslo?' },
          call!,
          { type: 'function_call_output', call_id: 'call_w1', output: '{"temp_c":-3}' },
        ],
      })
      .finalResponse();
    expect(second.output_text).toBe('chunk1 chunk2 chunk3 ');
    expect(lastUpstreamBody().messages).toContainEqual({
      role: 'tool',
      tool_call_id: 'call_w1',
      content: '{"temp_c":-3}',
    });
  });
});

/**
 * Responses streaming (SPEC 4.2 over SPEC 3.4), read raw against fake upstreams: OpenAI's typed events in
 * their order, each valid against the contract's ResponsesStreamEvent and numbered from 0; text and function
 * calls; the final event carrying the whole response and its usage; and chat streams' guarantees — a silent
 * upstream fails over unseen, a stream that dies ends with one `error` event and is not billed, every stream
 * ends with `[DONE]`.
 */
import { createOpenAI } from '@ai-sdk/openai';
import { streamText } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeChunkText } from '../fixtures/fake-upstream.js';
import { componentChecker } from '../setup/contract.js';
import { namedFakeUpstreams } from '../setup/fake-upstreams.js';
import { type Harness, startHarness } from '../setup/harness.js';
import { micros } from '../setup/money.js';
import { removeUpstreamsFiles, writeUpstreamsFile } from '../setup/upstreams.js';
import {
  dataFrames,
  expectEndsWithDone,
  expectNothingBilled,
  money,
  moneyWhenSettled,
  namedEvents,
  type SseResult,
  streamResponses,
} from './gateway-helpers.js';

const USAGE = { promptTokens: 1000, completionTokens: 500 };
/** gpt-5-mini: 1000 × $0.25 + 500 × $2 per Mtok. */
const COST_MICROS = 1250n;
const ANSWER = [0, 1, 2].map(fakeChunkText).join('');
const CALLS = [
  { id: 'call_a', name: 'get_weather', arguments: '{"city":"Oslo"}' },
  { id: 'call_b', name: 'get_time', arguments: '{"zone":"Europe/Oslo"}' },
];

const { fakes, behaviours, arrivals } = namedFakeUpstreams(['a', 'b'], { usage: USAGE });
let h: Harness;
let account: { accountId: string; apiKey: string };
const checkEvent = componentChecker('ResponsesStreamEvent');

beforeAll(async () => {
  const upstreams = writeUpstreamsFile({
    'gpt-5-mini': [
      { provider: 'fake-b', url: fakes.b.baseUrl, cost: { input: 0.2, output: 2 } },
      { provider: 'fake-a', url: fakes.a.baseUrl, cost: { input: 0.1, output: 1 } },
    ],
  });
  h = await startHarness({ UPSTREAMS_FILE: upstreams, STREAM_FIRST_TOKEN_TIMEOUT_MS: '300' });
});

afterAll(async () => {
  await h?.close();
  removeUpstreamsFiles();
});

beforeEach(async () => {
  account = await h.newAccount(undefined, { balanceUsd: 5 });
});

/** The events, after checking what every Responses stream owes: SSE, event names = types, valid, numbered, `[DONE]`. */
function eventsOf(result: SseResult): Record<string, any>[] {
  expect(result.status, result.raw).toBe(200);
  expect(result.headers.get('content-type')).toMatch(/^text\/event-stream/);
  expectEndsWithDone(result);
  const events = namedEvents(result);
  for (const { event, data } of events) {
    expect(event).toBe(data.type);
    expect(checkEvent(data), JSON.stringify(data)).toBeNull();
  }
  expect(events.map(({ data }) => data.sequence_number)).toEqual(events.map((_, i) => i));
  return events.map(({ data }) => data);
}

const typesOf = (events: Record<string, any>[]) => events.map((event) => event.type);

describe('Responses stream: what a normal answer sends', () => {
  it('text: created, in_progress, the message item and its deltas, then completed with the whole response; billed as chat', async () => {
    const result = await streamResponses(h, account.apiKey, { metadata: { ticket: 'T-9' } });
    const events = eventsOf(result);
    expect(typesOf(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const suffix = result.headers.get('x-request-id')!.replace(/^req_/, '');
    expect(events[0]!.response).toMatchObject({
      id: `resp_${suffix}`,
      status: 'in_progress',
      output: [],
      usage: null,
      metadata: { ticket: 'T-9' },
    });
    const deltas = events.filter((e) => e.type === 'response.output_text.delta');
    expect(deltas.map((e) => e.delta).join('')).toBe(ANSWER);
    expect(new Set(deltas.map((e) => e.item_id))).toEqual(new Set([`msg_${suffix}`]));
    const completed = events.at(-1)!.response;
    expect(completed).toMatchObject({
      id: `resp_${suffix}`,
      status: 'completed',
      incomplete_details: null,
      output_text: ANSWER,
      metadata: { ticket: 'T-9' },
    });
    expect(completed.output).toEqual([
      {
        type: 'message',
        id: `msg_${suffix}`,
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: ANSWER, annotations: [] }],
      },
    ]);
    expect(completed.usage).toMatchObject({
      input_tokens: 1000,
      output_tokens: 500,
      total_tokens: 1500,
      input_tokens_details: { cached_tokens: 0 },
    });
    // usage.cost is the list-price estimate (SPEC 2.6); with no discount it is what the ledger posts.
    expect(micros(completed.usage.cost)).toBe(COST_MICROS);
    const after = await moneyWhenSettled(h, account.accountId, 1);
    expect(after.postedMicros).toBe(COST_MICROS);
    expect(after.records[0]!.metadata).toMatchObject({ provider: 'fake-a' });
  });

  it('function calls: one item per call, its arguments in deltas, then the calls in response.completed', async () => {
    behaviours.a = { reply: { toolCalls: CALLS } };
    const result = await streamResponses(h, account.apiKey, {
      tools: [
        { type: 'function', name: 'get_weather' },
        { type: 'function', name: 'get_time' },
      ],
    });
    const events = eventsOf(result);
    expect(typesOf(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const added = events.filter((e) => e.type === 'response.output_item.added');
    expect(added.map((e) => [e.output_index, e.item.call_id, e.item.name, e.item.arguments, e.item.status])).toEqual([
      [0, 'call_a', 'get_weather', '', 'in_progress'],
      [1, 'call_b', 'get_time', '', 'in_progress'],
    ]);
    for (const [index, call] of CALLS.entries()) {
      const pieces = events.filter(
        (e) => e.type === 'response.function_call_arguments.delta' && e.output_index === index,
      );
      expect(pieces.map((e) => e.delta).join('')).toBe(call.arguments);
      expect(new Set(pieces.map((e) => e.item_id))).toEqual(new Set([added[index]!.item.id]));
    }
    const completed = events.at(-1)!.response;
    expect(completed.output).toEqual(
      CALLS.map((call, i) => ({
        type: 'function_call',
        id: added[i]!.item.id,
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
        status: 'completed',
      })),
    );
    expect(completed.output_text).toBe('');
    await moneyWhenSettled(h, account.accountId, 1);
  });

  it('cut by max_output_tokens: response.incomplete with incomplete_details', async () => {
    behaviours.a = { reply: { finishReason: 'length' } };
    const events = eventsOf(await streamResponses(h, account.apiKey, { max_output_tokens: 600 }));
    const last = events.at(-1)!;
    expect(last.type).toBe('response.incomplete');
    expect(last.response).toMatchObject({
      status: 'incomplete',
      incomplete_details: { reason: 'max_output_tokens' },
      output_text: ANSWER,
    });
    expect(last.response.output[0].status).toBe('incomplete');
  });

  it('at /v1/responses too', async () => {
    const response = await fetch(`${h.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { 'x-api-key': account.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5-mini', input: 'hi', stream: true }),
    });
    const raw = await response.text();
    const events = eventsOf({ status: response.status, headers: response.headers, raw, frames: dataFrames(raw) });
    expect(events.at(-1)!.type).toBe('response.completed');
  });
});

describe('Responses stream: the guarantees of chat streams', () => {
  it('a silent first upstream is failed over unseen', async () => {
    behaviours.a = 'silent';
    const events = eventsOf(await streamResponses(h, account.apiKey, {}));
    expect(arrivals).toEqual(['a', 'b']);
    expect(events.at(-1)!.response.output_text).toBe(ANSWER);
    const after = await moneyWhenSettled(h, account.accountId, 1);
    expect(after.records[0]!.metadata).toMatchObject({ provider: 'fake-b' });
  });

  it('a stream that dies after one chunk: its delta, then one error event, [DONE]; no completed; nothing billed', async () => {
    behaviours.a = { dieAfterChunks: 1 };
    const before = await money(h, account.accountId);
    const events = eventsOf(await streamResponses(h, account.apiKey, {}));
    expect(arrivals).toEqual(['a']);
    expect(typesOf(events)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'error',
    ]);
    expect(events.at(-1)).toEqual({
      type: 'error',
      sequence_number: 5,
      code: 'upstream_error',
      message: expect.any(String),
      param: null,
      error: { type: 'api_error', code: 'upstream_error', message: expect.any(String) },
    });
    await expectNothingBilled(h, account.accountId, before);
  });

  it('an error inside the upstream stream maps like chat (429 → rate_limit_exceeded); nothing billed', async () => {
    behaviours.a = {
      errorAfterChunks: 1,
      error: { message: 'slow down', type: 'rate_limit_error', code: 'rate_limit_exceeded' },
    };
    const before = await money(h, account.accountId);
    const events = eventsOf(await streamResponses(h, account.apiKey, {}));
    expect(events.at(-1)).toMatchObject({
      type: 'error',
      code: 'rate_limit_exceeded',
      error: { type: 'rate_limit_error' },
    });
    expect(JSON.stringify(events)).not.toContain('slow down'); // nothing of the upstream's body is forwarded
    await expectNothingBilled(h, account.accountId, before);
  });

  it('every upstream silent: created, in_progress, one empty_upstream_stream error, [DONE]; nothing billed', async () => {
    Object.assign(behaviours, { a: 'silent', b: 'silent' });
    const before = await money(h, account.accountId);
    const events = eventsOf(await streamResponses(h, account.apiKey, {}));
    expect(typesOf(events)).toEqual(['response.created', 'response.in_progress', 'error']);
    expect(events[2]).toMatchObject({ code: 'empty_upstream_stream', error: { code: 'empty_upstream_stream' } });
    await expectNothingBilled(h, account.accountId, before);
  });

  it('every upstream failing at opening: one error event (SPEC 6.2 code), [DONE], nothing billed', async () => {
    Object.assign(behaviours, { a: { status: 500 }, b: { status: 502 } });
    const before = await money(h, account.accountId);
    const events = eventsOf(await streamResponses(h, account.apiKey, {}));
    expect(events.filter((event) => event.type === 'error')).toEqual([
      expect.objectContaining({
        code: 'upstream_server_error',
        error: expect.objectContaining({ type: 'api_error', code: 'upstream_server_error' }),
      }),
    ]);
    await expectNothingBilled(h, account.accountId, before);
  });
});

describe('Responses stream: a dying stream as the client libraries see it', () => {
  it('the official openai client raises an APIError with the code', async () => {
    behaviours.a = { dieAfterChunks: 1 };
    const client = new OpenAI({ baseURL: `${h.baseUrl}/v1/compat`, apiKey: account.apiKey, maxRetries: 0 });
    const stream = await client.responses.create({ model: 'gpt-5-mini', input: 'hi', stream: true });
    const seen: string[] = [];
    const err = await (async () => {
      for await (const event of stream) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(seen).toContain('response.output_text.delta');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).toMatchObject({ code: 'upstream_error' });
  });

  it('the AI SDK ends the stream with an error part, not a silent finish', async () => {
    behaviours.a = { dieAfterChunks: 1 };
    const openai = createOpenAI({ baseURL: `${h.baseUrl}/v1/compat`, apiKey: account.apiKey });
    const errors: unknown[] = [];
    const result = streamText({
      model: openai('gpt-5-mini'),
      prompt: 'hi',
      maxRetries: 0,
      onError: ({ error }) => void errors.push(error),
    });
    for await (const _ of result.fullStream) void _;
    expect(errors).toHaveLength(1);
    expect(JSON.stringify(errors[0])).toContain('upstream_error');
  });
});

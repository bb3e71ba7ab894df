import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countTokens, estimatePromptTokens } from '../../src/domain/text/token-counting.js';
import { expectCompatError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ BODY_LIMIT_BYTES: '65536' });
});
afterAll(() => h.close());

const MODEL = 'gpt-5-mini';

const respond = (key: string | undefined, body: unknown, options: Parameters<typeof call>[3] = {}) =>
  call(h.baseUrl, 'POST', '/v1/responses', { ...(key === undefined ? {} : { key }), body, ...options });
const chat = (key: string, body: unknown) => call(h.baseUrl, 'POST', '/v1/compat/chat/completions', { key, body });

const micros = (usd: number) => BigInt(Math.round(usd * 1e6));

describe('POST /v1/responses', () => {
  it('409 idempotency_conflict for a key reused with another body; the same body is replayed; 400 for a malformed key', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 5 });
    await expectIdempotencyContract(
      (body, key) => respond(apiKey, body, { headers: { 'idempotency-key': key } }),
      { first: { model: MODEL, input: 'Say hello' }, other: { model: MODEL, input: 'Say goodbye' } },
      'compat',
    );
  });

  it('200: a Responses object; output_text is the reply; usage.cost is what the ledger posted', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await respond(apiKey, { model: MODEL, input: 'Say hello', metadata: { ticket: 'T-1' } });
    expect(response.status, response.text).toBe(200);
    const body = response.body;
    const requestId = response.headers.get('x-request-id')!;
    expect(requestId).toMatch(/^req_/);
    const suffix = requestId.replace(/^req_/, '');
    expect(body).toEqual({
      id: `resp_${suffix}`,
      object: 'response',
      created_at: expect.any(Number),
      model: MODEL,
      status: 'completed',
      incomplete_details: null,
      output: [
        {
          type: 'message',
          id: `msg_${suffix}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: body.output_text, annotations: [] }],
        },
      ],
      output_text: expect.stringMatching(/^Sandbox reply \(gpt-5-mini\): \S/),
      usage: {
        input_tokens: expect.any(Number),
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: expect.any(Number),
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: expect.any(Number),
        cost: expect.any(Number),
      },
      metadata: { ticket: 'T-1' },
    });
    const messages = [{ role: 'user', content: 'Say hello' }];
    expect(body.usage.input_tokens).toBe(estimatePromptTokens({ messages: messages }));
    expect(body.usage.output_tokens).toBe(countTokens(body.output_text));
    expect(body.usage.total_tokens).toBe(body.usage.input_tokens + body.usage.output_tokens);
    expect(body.usage.cost).toBeGreaterThan(0);
    expect(micros(body.usage.cost)).toBe(await h.deps.ledger.postedSpend(accountId));

    // The same conversation on chat completions gives the same text and the same price.
    const same = await chat(apiKey, { model: MODEL, messages });
    expect(same.body.choices[0].message.content).toBe(body.output_text);
    expect(same.body.usage.cost).toBe(body.usage.cost);
    const requests = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/llm/usage/requests', { key: apiKey })).requests;
    expect(requests).toHaveLength(2);
    expect(requests[1]).toMatchObject({ request_id: requestId, model: MODEL, kind: 'chat', cost_usd: body.usage.cost });
  });

  it('accepts X-API-Key (and an explicit stream: false)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await respond(apiKey, { model: MODEL, input: 'Hi', stream: false }, { keyHeader: 'x-api-key' });
    expect(response.status, response.text).toBe(200);
    expect(response.body.object).toBe('response');
  });

  it('instructions become the system message (the reply equals the equivalent chat call)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const instructed = await respond(apiKey, { model: MODEL, instructions: 'Answer as a pirate.', input: 'Say hello' });
    expect(instructed.status, instructed.text).toBe(200);
    const equivalent = await chat(apiKey, {
      model: MODEL,
      messages: [
        { role: 'system', content: 'Answer as a pirate.' },
        { role: 'user', content: 'Say hello' },
      ],
    });
    expect(instructed.body.output_text).toBe(equivalent.body.choices[0].message.content);
    expect(instructed.body.usage.input_tokens).toBe(equivalent.body.usage.prompt_tokens);

    const plain = await respond(apiKey, { model: MODEL, input: 'Say hello' });
    expect(plain.body.output_text).not.toBe(instructed.body.output_text);
  });

  it('input as a list of messages with Responses content parts', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await respond(apiKey, {
      model: MODEL,
      input: [
        { type: 'message', role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Describe' }] },
      ],
    });
    expect(response.status, response.text).toBe(200);
    const equivalent = await chat(apiKey, {
      model: MODEL,
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Describe' }] },
      ],
    });
    expect(response.body.output_text).toBe(equivalent.body.choices[0].message.content);
  });

  it('without model: the catalog default; max_output_tokens caps the reply (status incomplete)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await respond(apiKey, { input: 'Say hello', max_output_tokens: 2 });
    expect(response.status, response.text).toBe(200);
    expect(response.body.model).toBe(h.deps.catalog.defaultModel);
    expect(response.body.status).toBe('incomplete');
    expect(response.body.output[0].status).toBe('incomplete');
    expect(response.body.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.body.usage.output_tokens).toBeLessThanOrEqual(2);
  });

  const cases: [string, string, Record<string, unknown>][] = [
    ['input empty string', 'messages_required', { model: MODEL, input: '' }],
    ['input empty list', 'messages_required', { model: MODEL, input: [] }],
    ['input missing', 'messages_required', { model: MODEL }],
    ['input whitespace only', 'empty_message_content', { model: MODEL, input: '   ' }],
    ['model empty', 'model_required', { model: '', input: 'hi' }],
    ['an unknown model', 'model_not_found', { model: 'no-such-model', input: 'hi' }],
    ['an embedding model', 'model_is_retrieval', { model: 'text-embedding-3-small', input: 'hi' }],
    ['temperature 3', 'invalid_temperature', { model: MODEL, input: 'hi', temperature: 3 }],
    ['top_p 1.5', 'invalid_top_p', { model: MODEL, input: 'hi', top_p: 1.5 }],
    ['max_output_tokens 0', 'invalid_max_tokens', { model: MODEL, input: 'hi', max_output_tokens: 0 }],
    [
      'max_output_tokens above the model cap',
      'invalid_max_tokens',
      { model: MODEL, input: 'hi', max_output_tokens: 128_001 },
    ],
    [
      'stream_options with an unknown field',
      'invalid_request',
      { model: MODEL, input: 'hi', stream: true, stream_options: { include_usage: true } },
    ],
    ['an unknown field', 'invalid_request', { model: MODEL, input: 'hi', modalities: ['text'] }],
    [
      'previous_response_id (responses are not stored)',
      'invalid_request',
      { model: MODEL, input: 'hi', previous_response_id: 'resp_abc' },
    ],
    [
      'a tool that is not a function',
      'invalid_request',
      { model: MODEL, input: 'hi', tools: [{ type: 'web_search' }] },
    ],
    [
      'a function_call_output without call_id',
      'invalid_messages_format',
      { model: MODEL, input: [{ type: 'function_call_output', output: '42' }] },
    ],
  ];

  it.each(cases)('400: %s → %s', async (_name, code, body) => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await respond(apiKey, body);
    expectCompatError(response, 400, code);
    expect(response.headers.get('x-should-retry')).toBe('false');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(0n);
  });

  // Regression guard: the same mistake answers the same code as on chat completions (SPEC 4.2 "same codes").
  it('an input message with an unsupported role answers invalid_messages_format, as on chat completions', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(
      await respond(apiKey, { model: MODEL, input: [{ role: 'tool', content: 'x' }] }),
      400,
      'invalid_messages_format',
    );
  });

  // Regression guard: `/body/input@required` is about `input` itself, not a `content` missing inside one message.
  it('an input message without content → invalid_messages_format (not messages_required)', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(
      await respond(apiKey, { model: MODEL, input: [{ role: 'user' }] }),
      400,
      'invalid_messages_format',
    );
  });

  it('402 insufficient_balance with $0', async () => {
    const { apiKey } = await h.newAccount();
    expectCompatError(await respond(apiKey, { model: MODEL, input: 'hi' }), 402, 'insufficient_balance');
  });

  it('401 without a key and with an unknown key in either header', async () => {
    expectCompatError(await respond(undefined, { model: MODEL, input: 'hi' }), 401, 'authentication_required');
    expectCompatError(await respond(`cgw_${'Z'.repeat(40)}`, { model: MODEL, input: 'hi' }), 401, 'invalid_api_key');
    expectCompatError(
      await respond(`cgw_${'Z'.repeat(40)}`, { model: MODEL, input: 'hi' }, { keyHeader: 'x-api-key' }),
      401,
      'invalid_api_key',
    );
  });

  it('413 over the body cap and 415 for a body that is not JSON', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(await respond(apiKey, { model: MODEL, input: 'x'.repeat(100_000) }), 413, 'request_too_large');
    expectCompatError(
      await respond(apiKey, undefined, { rawBody: 'input=hi', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
  });
});

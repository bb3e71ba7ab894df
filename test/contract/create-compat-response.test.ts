/**
 * `POST /v1/compat/responses`: the Responses operation where clients whose base URL is `/v1/compat` call it (the AI
 * SDK's default `openai(id)` model, `client.responses.create` on a compat client). The same operation as
 * `/v1/responses` (create-response.test.ts covers it whole); here, that it is served and answers in the compat envelope.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';
import { micros } from '../setup/money.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const respond = (key: string | undefined, body: unknown) =>
  call(h.baseUrl, 'POST', '/v1/compat/responses', { ...(key === undefined ? {} : { key }), body });

describe('POST /v1/compat/responses', () => {
  it('200: a Responses object, charged like /v1/responses', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const response = await respond(apiKey, {
      model: 'gpt-5-mini',
      input: 'Say hello',
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-5-mini' });
    expect(response.body.output_text.length).toBeGreaterThan(0);
    expect(micros(response.body.usage.cost)).toBe(await h.deps.ledger.postedSpend(accountId));
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', '/v1/compat/responses', { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const first = { model: 'gpt-5-mini', input: 'Say hello', store: false, include: ['reasoning.encrypted_content'] };
    const firstAnswer = await expectIdempotencyContract(
      send,
      { first, other: { ...first, input: 'Say goodbye' } },
      'compat',
      200,
    );
    // Answered and charged once: the replay cost nothing.
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(usdToMicros(firstAnswer.body.usage.cost));
  });

  it('errors in the compat envelope: 401 without a key, 400 for a bad body, 402 with $0', async () => {
    expectCompatError(await respond(undefined, { model: 'gpt-5-mini', input: 'hi' }), 401, 'authentication_required');
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 10 });
    expectCompatError(
      await respond(apiKey, { model: 'gpt-5-mini', input: 'hi', temperature: 3 }),
      400,
      'invalid_temperature',
    );
    const broke = await h.newAccount();
    expectCompatError(await respond(broke.apiKey, { model: 'gpt-5-mini', input: 'hi' }), 402, 'insufficient_balance');
  });
});

/** POST /v1/compat/images/generations: the same rendering as the native path, in the compat shape and envelope. */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/money.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call, startHarness, type Harness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const COMPAT = '/v1/compat/images/generations';

describe('POST /v1/compat/images/generations', () => {
  it('the same images in the compat shape', async () => {
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const response = await call(h.baseUrl, 'POST', COMPAT, { key: apiKey, body: { model: 'imgG-1-5', prompt: 'A fox', size: '1000x1500' } });
    expect(response.status, response.text).toBe(200);
    expect(response.body.usage).toEqual({ model: 'imgG-1-5', images: 1, size: '1024x1536', aspect_ratio: null, output_format: 'png', cost: 0.05 });
    const meta = await sharp(Buffer.from(response.body.data[0].b64_json, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1536]);
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const send = (body: unknown, key: string) => call(h.baseUrl, 'POST', COMPAT, { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const first = { model: 'imgG-1-5', prompt: 'A fox', size: '1000x1500' };
    const firstAnswer = await expectIdempotencyContract(send, { first, other: { ...first, prompt: 'A hare' } }, 'compat', 200);
    // Rendered and charged once: the replay cost nothing.
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(usdToMicros(firstAnswer.body.usage.cost));
  });

  it('errors in the compat envelope: 402, 400 model_not_found', async () => {
    const broke = await h.newAccount();
    expectCompatError(await call(h.baseUrl, 'POST', COMPAT, { key: broke.apiKey, body: { model: 'imgG-2', prompt: 'x' } }), 402, 'insufficient_balance');
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expectCompatError(await call(h.baseUrl, 'POST', COMPAT, { key: apiKey, body: { model: 'gpt-5-mini', prompt: 'x' } }), 400, 'model_not_found');
  });
});

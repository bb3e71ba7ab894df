/** POST /v1/compat/images/generations: the same rendering as the native path, in the compat shape and envelope. */
import { Ajv2020 } from 'ajv/dist/2020.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { expectCompatError } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const COMPAT = '/v1/compat/images/generations';

/**
 * OpenAI's published `ImagesResponse` (openai-openapi, components.schemas.ImagesResponse with Image and
 * ImageGenUsage), written out here on its own: `usage`, when present, must carry the token counts.
 */
const tokens = { type: 'integer' };
const validateImagesResponse = new Ajv2020({ strict: false }).compile({
  type: 'object',
  required: ['created'],
  properties: {
    created: tokens,
    data: {
      type: 'array',
      items: {
        type: 'object',
        properties: { b64_json: { type: 'string' }, url: { type: 'string' }, revised_prompt: { type: 'string' } },
      },
    },
    background: { enum: ['transparent', 'opaque'] },
    output_format: { enum: ['png', 'webp', 'jpeg'] },
    size: { enum: ['1024x1024', '1024x1536', '1536x1024'] },
    quality: { enum: ['low', 'medium', 'high'] },
    usage: {
      type: 'object',
      required: ['input_tokens', 'total_tokens', 'output_tokens', 'input_tokens_details'],
      properties: {
        input_tokens: tokens,
        total_tokens: tokens,
        output_tokens: tokens,
        input_tokens_details: {
          type: 'object',
          required: ['text_tokens', 'image_tokens'],
          properties: { text_tokens: tokens, image_tokens: tokens },
        },
      },
    },
  },
});

describe('POST /v1/compat/images/generations', () => {
  it('the same images in OpenAI’s ImagesResponse shape: no usage (it would need token counts), charged as the native path', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const response = await call(h.baseUrl, 'POST', COMPAT, {
      key: apiKey,
      body: { model: 'imgG-1-5', prompt: 'A fox', size: '1000x1500' },
    });
    expect(response.status, response.text).toBe(200);
    expect(validateImagesResponse(response.body), JSON.stringify(validateImagesResponse.errors)).toBe(true);
    expect(response.body).not.toHaveProperty('usage');
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(50_000n); // imgG-1-5 at 1024x1536: $0.05
    const native = await call(h.baseUrl, 'POST', '/v1/llm/images/generations', {
      key: apiKey,
      body: { model: 'imgG-1-5', prompt: 'A fox', size: '1000x1500' },
    });
    expect(native.body.data.usage).toEqual({
      model: 'imgG-1-5',
      images: 1,
      size: '1024x1536',
      aspect_ratio: null,
      output_format: 'png',
      cost: 0.05,
    });
    const meta = await sharp(Buffer.from(response.body.data[0].b64_json, 'base64')).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 1024, 1536]);
  });

  it('an Idempotency-Key replays the first answer without charging again; another body with it is 409', async () => {
    const { accountId, apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', COMPAT, { key: apiKey, body, headers: { 'Idempotency-Key': key } });
    const first = { model: 'imgG-1-5', prompt: 'A fox', size: '1000x1500' };
    await expectIdempotencyContract(send, { first, other: { ...first, prompt: 'A hare' } }, 'compat', 200);
    // Rendered and charged once ($0.05): the replay cost nothing.
    expect(await h.deps.ledger.postedSpend(accountId)).toBe(usdToMicros(0.05));
  });

  it('errors in the compat envelope: 402, 400 model_not_found', async () => {
    const broke = await h.newAccount();
    expectCompatError(
      await call(h.baseUrl, 'POST', COMPAT, { key: broke.apiKey, body: { model: 'imgG-2', prompt: 'x' } }),
      402,
      'insufficient_balance',
    );
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expectCompatError(
      await call(h.baseUrl, 'POST', COMPAT, { key: apiKey, body: { model: 'gpt-5-mini', prompt: 'x' } }),
      400,
      'model_not_found',
    );
  });
});

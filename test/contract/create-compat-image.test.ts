/** POST /v1/compat/images/generations: the same rendering as the native path, in the compat shape and envelope. */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCompatError } from '../setup/envelopes.js';
import { call, startHarness, type Harness } from '../setup/harness.js';

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

  it('errors in the compat envelope: 402, 400 model_not_found', async () => {
    const broke = await h.newAccount();
    expectCompatError(await call(h.baseUrl, 'POST', COMPAT, { key: broke.apiKey, body: { model: 'imgG-2', prompt: 'x' } }), 402, 'insufficient_balance');
    const { apiKey } = await h.newAccount(undefined, { balanceUsd: 1 });
    expectCompatError(await call(h.baseUrl, 'POST', COMPAT, { key: apiKey, body: { model: 'gpt-5-mini', prompt: 'x' } }), 400, 'model_not_found');
  });
});

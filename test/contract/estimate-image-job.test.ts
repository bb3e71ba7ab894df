/**
 * POST /v1/llm/images/jobs/estimate (SPEC 4.3 with 2.11 and 4.6): the SKU, shape and tier an image request
 * resolves to, priced at list and at the caller's discount; the kickoff's checks; nothing debited.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setDiscounts } from '../../src/domain/accounts/accounts.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

let h: Harness;
let apiKey: string;
beforeAll(async () => {
  h = await startHarness();
  ({ apiKey } = await h.newAccount(undefined, { balanceUsd: 1 }));
});
afterAll(() => h.close());

const estimate = (body: Record<string, unknown>, key = apiKey) =>
  call(h.baseUrl, 'POST', '/v1/llm/images/jobs/estimate', { key, body: { prompt: 'A lighthouse at dawn', ...body } });

describe('POST /v1/llm/images/jobs/estimate', () => {
  it.each([
    // [what, request, model billed, size, aspect_ratio, tier, unit price]
    ['imgG-2 at 1024 px: the base 1K', { model: 'imgG-2', size: '1024x1024' }, 'imgG-2', null, '1:1', '1K', 0.0464],
    ['imgG-2 above 1024 px: the 2K SKU', { model: 'imgG-2', size: '2048x1152' }, 'imgG-2-2k', null, '16:9', '2K', 0.07],
    [
      'imgG-2 above 2048 px: the 4K SKU; 21:9 honoured',
      { model: 'imgG-2', size: '3360x1440' },
      'imgG-2-4k',
      null,
      '21:9',
      '4K',
      0.11,
    ],
    [
      'imgG-2-4k asked for small: still 4K (never below the SKU asked for)',
      { model: 'imgG-2-4k', size: '512x512' },
      'imgG-2-4k',
      null,
      '1:1',
      '4K',
      0.11,
    ],
    [
      'imgN-pro above 2048 px upgrades to imgN-pro-4k',
      { model: 'imgN-pro', size: '4096x4096' },
      'imgN-pro-4k',
      null,
      '1:1',
      '4K',
      0.192,
    ],
    [
      'imgG-2.5 extra aspects on the 1K SKU',
      { model: 'imgG-2-5-flash', size: '27:16' },
      'imgG-2-5-flash',
      null,
      '27:16',
      '1K',
      0.0464,
    ],
    [
      'imgG-2.5 extra aspects are not on the 2K SKU: snapped',
      { model: 'imgG-2-5-flash', size: '1920x1138' },
      'imgG-2-5-flash-2k',
      null,
      '16:9',
      '2K',
      0.07,
    ],
    [
      'imgG-1-5 snaps to its pixel sizes',
      { model: 'imgG-1-5', size: '1000x1500' },
      'imgG-1-5',
      '1024x1536',
      null,
      '1024x1536',
      0.05,
    ],
    ['imgG-4o snaps to 1:1, 2:3 or 3:2', { model: 'imgG-4o', size: '1792x1024' }, 'imgG-4o', null, '3:2', null, 0.04],
    [
      'kontext has no auto: square',
      { model: 'flux-kontext-pro', size: 'auto' },
      'flux-kontext-pro',
      null,
      '1:1',
      null,
      0.034,
    ],
    ['kontext adds 9:21', { model: 'flux-kontext-pro', size: '9:21' }, 'flux-kontext-pro', null, '9:21', null, 0.034],
    ['quality-priced: hd bills high', { model: 'imgG-1', quality: 'hd' }, 'imgG-1', '1024x1024', null, 'high', 0.167],
    ['quality-priced: none bills medium', { model: 'imgG-1' }, 'imgG-1', '1024x1024', null, 'medium', 0.042],
    [
      'megapixel-priced: 1920x1080 is 2 MP',
      { model: 'flux-2-pro', size: '1920x1080' },
      'flux-2-pro',
      null,
      '16:9',
      '2MP',
      0.045,
    ],
  ])('%s', async (_what, request, model, size, aspect, tier, unit) => {
    const data = expectNativeOk(await estimate({ ...request, n: 3 }));
    expect(data).toEqual({
      model,
      n: 3,
      size,
      aspect_ratio: aspect,
      tier,
      unit_price_usd: unit,
      estimated_cost_usd: Math.round(unit * 3 * 1e6) / 1e6,
      discounted_cost_usd: Math.round(unit * 3 * 1e6) / 1e6,
    });
  });

  it('the caller’s price: its personal discount, and a tier discount where set; nothing debited', async () => {
    const { accountId, apiKey: key } = await h.newAccount(undefined, { balanceUsd: 1 });
    await setDiscounts(h.deps.apiKeys, accountId, { discountPercent: 10, tierDiscounts: { '4K': 25 } });
    h.deps.authenticator.invalidate({ accountId });
    const before = await h.deps.ledger.getBalance(accountId);
    expect(expectNativeOk(await estimate({ model: 'imgG-2', size: '1024x1024', n: 2 }, key))).toMatchObject({
      estimated_cost_usd: 0.0928,
      discounted_cost_usd: 0.08352,
    });
    expect(expectNativeOk(await estimate({ model: 'imgG-2-4k', n: 2 }, key))).toMatchObject({
      estimated_cost_usd: 0.22,
      discounted_cost_usd: 0.165,
    });
    expect(await h.deps.ledger.getBalance(accountId)).toEqual(before);
  });

  it('400s: not an image model, an edit-only model without a reference, too many references, a bad size, no prompt', async () => {
    expectNativeError(await estimate({ model: 'gpt-5-mini' }), 400, 'model_not_found');
    expectNativeError(await estimate({ model: 'topaz-bloom' }), 400, 'model_not_found');
    const editOnly = await estimate({ model: 'flux-fill-pro' });
    expectNativeError(editOnly, 400, 'upstream_validation_error');
    expect(editOnly.body.data.meta.hint).toMatch(/input_images/);
    expect(
      expectNativeOk(await estimate({ model: 'flux-fill-pro', input_images: ['https://example.com/a.png'] })).model,
    ).toBe('flux-fill-pro');
    const tooMany = await estimate({ model: 'flux-kontext-pro', input_images: ['a', 'b'] });
    expectNativeError(tooMany, 400, 'invalid_request');
    expect(tooMany.body.data.meta.fields[0].loc).toEqual(['body', 'input_images']);
    expectNativeError(await estimate({ model: 'imgG-2', size: '0x512' }), 400, 'invalid_request');
    expectNativeError(await estimate({ model: 'imgG-2', size: 'big' }), 400, 'invalid_request');
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/llm/images/jobs/estimate', { key: apiKey, body: { model: 'imgG-2' } }),
      400,
      'invalid_request',
    );
  });

  it('401 without a key', async () => {
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/llm/images/jobs/estimate', { body: { model: 'imgG-2', prompt: 'x' } }),
      401,
      'authentication_required',
    );
  });
});

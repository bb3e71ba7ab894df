/** PATCH /v1/provider/machines/{machine_id}: the fields sent change; a new price applies to new rentals only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('PATCH /v1/provider/machines/{machine_id}', () => {
  it('200: a rise (price up, or a discount down) is announced and waits its notice; a cut applies at once; running rentals keep their price', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const rent = async () =>
      expectNativeOk(
        await call(h.baseUrl, 'POST', '/v1/instances', {
          key: renter.apiKey,
          body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour' },
        }),
        201,
      );
    const patch = async (body: Record<string, unknown>) =>
      expectNativeOk(
        await call(h.baseUrl, 'PATCH', `/v1/provider/machines/${provider.machineId}`, { key: provider.apiKey, body }),
      );
    const rented = await rent();
    const until = Math.floor(Date.now() / 1000) + 3600;
    const noticeEnds = Math.ceil(Date.now() / 1000) + 600;
    const raised = await patch({
      price_per_gpu_hour_usd: 0.9,
      discounts: { day: 0, week: 15, month: 35 },
      available_until: until,
    });
    expect(raised).toMatchObject({
      price_per_gpu_hour_usd: 0.6,
      discounts: { day: 10, week: 20, month: 30 },
      available_until: until,
      min_gpus: 1,
      listed: true,
    });
    expect(raised.price_rise).toMatchObject({
      price_per_gpu_hour_usd: 0.9,
      discounts: { day: 0, week: 15, month: 35 },
    });
    expect(Math.abs(raised.price_rise.applies_at - noticeEnds)).toBeLessThanOrEqual(2);
    const { offers } = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/marketplace/offers?gpu_model=${raised.gpu_name}`, { key: renter.apiKey }),
    );
    expect(offers[0]).toMatchObject({
      price_per_gpu_hour_usd: 0.6,
      price_rise: raised.price_rise,
      prices: { hour: { per_gpu_usd: 0.6 } },
    });
    // Within the notice a new rental pays the price shown.
    expect((await rent()).unit_price_usd).toBe(0.6);
    // Every plan cheaper than now (the announced discounts kept): a cut, applied at once, the rise dropped.
    expect(await patch({ price_per_gpu_hour_usd: 0.5 })).toMatchObject({
      price_per_gpu_hour_usd: 0.5,
      discounts: { day: 0, week: 15, month: 35 },
      price_rise: null,
    });
    expect((await rent()).unit_price_usd).toBe(0.5);
    // A smaller discount raises that plan's price: announced, the listing unchanged.
    expect(await patch({ discounts: { day: 0, week: 10, month: 35 } })).toMatchObject({
      discounts: { day: 0, week: 15, month: 35 },
      price_rise: { price_per_gpu_hour_usd: 0.5, discounts: { day: 0, week: 10, month: 35 } },
    });
    const read = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/instances/${rented.task_id}`, { key: renter.apiKey }),
    );
    expect(read.unit_price_usd).toBe(0.6);
  });

  it('400 for an empty change or a rule broken; 404 machine_not_found for another provider’s machine', async () => {
    const provider = await newProvider(h);
    const path = `/v1/provider/machines/${provider.machineId}`;
    expectNativeError(await call(h.baseUrl, 'PATCH', path, { key: provider.apiKey, body: {} }), 400, 'invalid_request');
    expectNativeError(
      await call(h.baseUrl, 'PATCH', path, { key: provider.apiKey, body: { min_gpus: 9 } }),
      400,
      'invalid_request',
    );
    expectNativeError(
      await call(h.baseUrl, 'PATCH', path, { key: provider.apiKey, body: { name: 'renamed' } }),
      400,
      'invalid_request',
    );
    const stranger = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'PATCH', path, { key: stranger.apiKey, body: { listed: false } }),
      404,
      'machine_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'PATCH', `/v1/provider/machines/${newId('mch')}`, {
        key: provider.apiKey,
        body: { listed: false },
      }),
      404,
      'machine_not_found',
    );
  });
});

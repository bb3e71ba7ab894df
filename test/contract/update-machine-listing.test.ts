/** PATCH /v1/provider/machines/{machine_id}: the fields sent change; a new price applies to new rentals only. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, startHarness, type Harness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('PATCH /v1/provider/machines/{machine_id}', () => {
  it('200: changes the price, discounts and availability; a running rental keeps the price it was rented at', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const rented = expectNativeOk(await call(h.baseUrl, 'POST', '/v1/instances', { key: renter.apiKey, body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour' } }), 201);
    const until = Math.floor(Date.now() / 1000) + 3600;
    const updated = expectNativeOk(
      await call(h.baseUrl, 'PATCH', `/v1/provider/machines/${provider.machineId}`, { key: provider.apiKey, body: { price_per_gpu_hour_usd: 0.9, discounts: { day: 0, week: 15, month: 35 }, available_until: until } }),
    );
    expect(updated).toMatchObject({ price_per_gpu_hour_usd: 0.9, discounts: { day: 0, week: 15, month: 35 }, available_until: until, min_gpus: 1, listed: true });
    const read = expectNativeOk(await call(h.baseUrl, 'GET', `/v1/instances/${rented.task_id}`, { key: renter.apiKey }));
    expect(read.unit_price_usd).toBe(0.6);
    const next = expectNativeOk(await call(h.baseUrl, 'POST', '/v1/instances', { key: renter.apiKey, body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour' } }), 201);
    expect(next.unit_price_usd).toBe(0.9);
  });

  it('400 for an empty change or a rule broken; 404 machine_not_found for another provider’s machine', async () => {
    const provider = await newProvider(h);
    const path = `/v1/provider/machines/${provider.machineId}`;
    expectNativeError(await call(h.baseUrl, 'PATCH', path, { key: provider.apiKey, body: {} }), 400, 'invalid_request');
    expectNativeError(await call(h.baseUrl, 'PATCH', path, { key: provider.apiKey, body: { min_gpus: 9 } }), 400, 'invalid_request');
    expectNativeError(await call(h.baseUrl, 'PATCH', path, { key: provider.apiKey, body: { name: 'renamed' } }), 400, 'invalid_request');
    const stranger = await h.newAccount();
    expectNativeError(await call(h.baseUrl, 'PATCH', path, { key: stranger.apiKey, body: { listed: false } }), 404, 'machine_not_found');
    expectNativeError(await call(h.baseUrl, 'PATCH', `/v1/provider/machines/${newId('mch')}`, { key: provider.apiKey, body: { listed: false } }), 404, 'machine_not_found');
  });
});

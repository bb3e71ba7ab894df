/** POST /v1/burst/orders/{order_id}/start: every stopped rental started again; one whose GPUs are gone is reported. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider, placeBurst, runningRental } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('POST /v1/burst/orders/{order_id}/start', () => {
  it('starts the rentals whose GPUs are free and lists the one whose GPUs were rented meanwhile', async () => {
    const gpu = newId('g');
    const a = await newProvider(h, { gpu_name: gpu, gpu_count: 2, price_per_gpu_hour_usd: 1 });
    const b = await newProvider(h, { gpu_name: gpu, gpu_count: 2, price_per_gpu_hour_usd: 2 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const placed = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 4 });
    expectNativeOk(await call(h.baseUrl, 'POST', `/v1/burst/orders/${placed.order_id}/stop`, { key: renter.apiKey }));
    const other = await h.newAccount(undefined, { balanceUsd: 100 });
    await runningRental(h, other.apiKey, b, { pricing_type: 'hour' });
    const started = expectNativeOk(
      await call(h.baseUrl, 'POST', `/v1/burst/orders/${placed.order_id}/start`, { key: renter.apiKey }),
    );
    const onB = placed.instances.find((i: any) => i.offer_id === b.machineId);
    expect(started.failures).toEqual([
      { task_id: onB.task_id, error_code: 'resources_unavailable', error: expect.any(String) },
    ]);
    expect(started).toMatchObject({ desired_status: 'running', counts: { pending: 1, stopped: 1 } });
    expect(await h.deps.market.store.freeGpus(a.machineId)).toBe(0);
    expectNativeError(
      await call(h.baseUrl, 'POST', `/v1/burst/orders/${newId('burst')}/start`, { key: renter.apiKey }),
      404,
      'burst_order_not_found',
    );
  });
});

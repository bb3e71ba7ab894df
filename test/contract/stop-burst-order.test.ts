/** POST /v1/burst/orders/{order_id}/stop: every rental stopped, settled, its GPUs released. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider, placeBurst } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('POST /v1/burst/orders/{order_id}/stop', () => {
  it('stops every rental of the order and frees their GPUs', async () => {
    const gpu = newId('g');
    const a = await newProvider(h, { gpu_name: gpu, gpu_count: 2 });
    const b = await newProvider(h, { gpu_name: gpu, gpu_count: 2 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const placed = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 3 });
    const stopped = expectNativeOk(
      await call(h.baseUrl, 'POST', `/v1/burst/orders/${placed.order_id}/stop`, { key: renter.apiKey }),
    );
    expect(stopped).toMatchObject({
      status: 'stopped',
      desired_status: 'stopped',
      counts: { stopped: 2 },
      failures: [],
    });
    expect(
      stopped.instances.every(
        (i: any) => i.status === 'stopped' && i.status_reason === 'user' && i.gpu_indexes.length === 0,
      ),
    ).toBe(true);
    expect((await h.deps.market.store.freeGpus(a.machineId)) + (await h.deps.market.store.freeGpus(b.machineId))).toBe(
      4,
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', `/v1/burst/orders/${placed.order_id}/stop`, { key: a.apiKey }),
      404,
      'burst_order_not_found',
    );
  });
});

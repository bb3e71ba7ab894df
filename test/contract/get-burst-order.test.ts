/** GET /v1/burst/orders/{order_id}: one order with its rentals and a status made from theirs. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { heartbeat, newProvider, placeBurst } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/burst/orders/{order_id}', () => {
  it('is starting until every rental runs, then running; 404 burst_order_not_found for another account’s or an unknown order', async () => {
    const gpu = newId('g');
    const a = await newProvider(h, { gpu_name: gpu, gpu_count: 2 });
    const b = await newProvider(h, { gpu_name: gpu, gpu_count: 2 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const placed = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 4 });
    const read = async () =>
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/burst/orders/${placed.order_id}`, { key: renter.apiKey }));
    const [onA, onB] = [
      placed.instances.find((i: any) => i.offer_id === a.machineId),
      placed.instances.find((i: any) => i.offer_id === b.machineId),
    ];
    await heartbeat(h, a, [{ instance_id: onA.task_id, state: 'running' }]);
    expect(await read()).toMatchObject({ status: 'starting', counts: { pending: 1, running: 1 } });
    await heartbeat(h, b, [{ instance_id: onB.task_id, state: 'running' }]);
    expect(await read()).toMatchObject({ status: 'running', counts: { pending: 0, running: 2 } });
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/burst/orders/${placed.order_id}`, { key: a.apiKey }),
      404,
      'burst_order_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/burst/orders/${newId('burst')}`, { key: renter.apiKey }),
      404,
      'burst_order_not_found',
    );
  });
});

/** GET /v1/burst/orders/{order_id}/history: every status change of the order's rentals, newest first. */
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

describe('GET /v1/burst/orders/{order_id}/history', () => {
  it('shows placed, running and stopped with their reasons, newest first, at most limit', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu, gpu_count: 2 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const placed = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 2 });
    const taskId = placed.instances[0].task_id;
    await heartbeat(h, provider, [{ instance_id: taskId, state: 'running' }]);
    await heartbeat(h, provider, [{ instance_id: taskId, state: 'failed' }]);
    const { events } = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/burst/orders/${placed.order_id}/history`, { key: renter.apiKey }),
    );
    expect(events.map((e: any) => [e.task_id, e.status, e.reason])).toEqual([
      [taskId, 'stopped', 'error'],
      [taskId, 'running', null],
      [taskId, 'pending', null],
    ]);
    const page = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/burst/orders/${placed.order_id}/history?limit=1`, { key: renter.apiKey }),
    );
    expect(page.events).toHaveLength(1);
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/burst/orders/${newId('burst')}/history`, { key: renter.apiKey }),
      404,
      'burst_order_not_found',
    );
  });
});

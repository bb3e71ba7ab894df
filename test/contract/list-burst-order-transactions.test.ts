/** GET /v1/burst/orders/{order_id}/transactions: every charge settled for the order's rentals, newest first. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { heartbeat, newProvider, placeBurst } from '../setup/market.js';

const clock = { now: Date.now() };
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MACHINE_OFFLINE_MS: String(24 * 3600_000) }, { now: () => clock.now });
});
afterAll(() => h.close());

describe('GET /v1/burst/orders/{order_id}/transactions', () => {
  it('lists each settlement of each rental as the ledger posted it, newest first, at most limit', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu, gpu_count: 2, price_per_gpu_hour_usd: 6 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const placed = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 2 });
    const taskId = placed.instances[0].task_id;
    await heartbeat(h, provider, [{ instance_id: taskId, state: 'running' }]);
    for (let minute = 0; minute < 3; minute++) {
      clock.now += 60_000;
      await heartbeat(h, provider, [{ instance_id: taskId, state: 'running' }]);
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/instances/${taskId}`, { key: renter.apiKey }));
    }
    const { transactions } = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/burst/orders/${placed.order_id}/transactions?limit=2`, { key: renter.apiKey }),
    );
    // 2 GPUs at $6 an hour: $0.20 a minute.
    expect(transactions).toEqual([
      { transaction_id: `rental:${taskId}:3`, task_id: taskId, amount_usd: 0.2, created_at: clock.now },
      { transaction_id: `rental:${taskId}:2`, task_id: taskId, amount_usd: 0.2, created_at: clock.now - 60_000 },
    ]);
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/burst/orders/${placed.order_id}/transactions`, { key: provider.apiKey }),
      404,
      'burst_order_not_found',
    );
  });
});

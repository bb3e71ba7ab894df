/** DELETE /v1/burst/orders/{order_id}: every rental terminated and settled; the order stays readable. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider, placeBurst } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('DELETE /v1/burst/orders/{order_id}', () => {
  it('terminates every rental, gives back every term hold, frees the GPUs', async () => {
    const gpu = newId('g');
    const a = await newProvider(h, { gpu_name: gpu, gpu_count: 2, price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const placed = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 2, pricing_type: 'day' });
    expect((await h.deps.ledger.getBalance(renter.accountId)).heldMicros).toBe(usdToMicros(43.2));
    const deleted = expectNativeOk(
      await call(h.baseUrl, 'DELETE', `/v1/burst/orders/${placed.order_id}`, { key: renter.apiKey }),
    );
    expect(deleted).toMatchObject({ status: 'terminated', desired_status: 'terminated', counts: { terminated: 1 } });
    expect(await h.deps.ledger.getBalance(renter.accountId)).toMatchObject({
      availableMicros: usdToMicros(100),
      heldMicros: 0n,
    });
    expect(await h.deps.market.store.freeGpus(a.machineId)).toBe(2);
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/burst/orders/${placed.order_id}`, { key: renter.apiKey }))
        .status,
    ).toBe('terminated');
    expectNativeError(
      await call(h.baseUrl, 'DELETE', `/v1/burst/orders/${placed.order_id}`, { key: a.apiKey }),
      404,
      'burst_order_not_found',
    );
  });
});

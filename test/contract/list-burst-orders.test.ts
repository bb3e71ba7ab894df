/** GET /v1/burst/orders: the caller's orders, newest first, paged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider, placeBurst } from '../setup/market.js';
import { sleep } from '../setup/time.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/burst/orders', () => {
  it('lists the caller’s orders newest first with their rentals, and no one else’s', async () => {
    const gpu = newId('g');
    await newProvider(h, { gpu_name: gpu, gpu_count: 8 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const first = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 1 });
    await sleep(5);
    const second = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 2 });
    const { orders } = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/burst/orders', { key: renter.apiKey }));
    expect(orders.map((o: any) => [o.order_id, o.placed_gpus, o.instances.length])).toEqual([
      [second.order_id, 2, 1],
      [first.order_id, 1, 1],
    ]);
    const page = expectNativeOk(
      await call(h.baseUrl, 'GET', '/v1/burst/orders?limit=1&offset=1', { key: renter.apiKey }),
    );
    expect(page.orders.map((o: any) => o.order_id)).toEqual([first.order_id]);
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', '/v1/burst/orders', { key: (await h.newAccount()).apiKey })).orders,
    ).toEqual([]);
    expectNativeError(
      await call(h.baseUrl, 'GET', '/v1/burst/orders?limit=-1', { key: renter.apiKey }),
      400,
      'invalid_request',
    );
  });
});

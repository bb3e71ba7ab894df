/** POST /v1/burst/orders/estimate: the allocator's plan now, priced; nothing taken. */
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

describe('POST /v1/burst/orders/estimate', () => {
  it('plans the cheapest GPUs under the caps, prices them by the hour and for the plan, says the shortfall, takes nothing', async () => {
    const [gpu, other] = [newId('g'), newId('g')];
    const a = await newProvider(h, { gpu_name: gpu, gpu_count: 2, price_per_gpu_hour_usd: 1, location: 'US' });
    const b = await newProvider(h, { gpu_name: other, gpu_count: 2, price_per_gpu_hour_usd: 0.5 });
    const renter = await h.newAccount();
    const estimate = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/burst/orders/estimate', {
        key: renter.apiKey,
        body: {
          docker_image: 'ubuntu:24.04',
          primary_gpu: gpu,
          gpu_count: 5,
          extra_gpus: [{ gpu_name: other, max_price: 0.6 }],
          pricing_type: 'day',
        },
      }),
    );
    expect(estimate).toEqual({
      gpu_count: 5,
      planned_gpus: 4,
      shortfall: 1,
      pricing_type: 'day',
      slots: [
        {
          offer_id: a.machineId,
          gpu_name: gpu,
          gpus: 2,
          price_per_gpu_hour_usd: 1,
          unit_price_usd: 21.6,
          location: 'US',
          verification: 'unverified',
        },
        {
          offer_id: b.machineId,
          gpu_name: other,
          gpus: 2,
          price_per_gpu_hour_usd: 0.5,
          unit_price_usd: 10.8,
          location: 'DE',
          verification: 'unverified',
        },
      ],
      per_hour_usd: 3,
      due_at_start_usd: 64.8,
    });
    expect(await h.deps.market.store.freeGpus(a.machineId)).toBe(2);
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/burst/orders/estimate', {
        key: renter.apiKey,
        body: { primary_gpu: gpu, gpu_count: 5 },
      }),
      400,
      'invalid_request',
    );
  });

  it('matches the GPU names of its tiers ignoring case, spaces, hyphens and underscores', async () => {
    const [tag, otherTag] = [newId('g'), newId('g')].map((id) => id.replace(/[^A-Za-z0-9]/g, ''));
    const a = await newProvider(h, { gpu_name: `RTX_${tag}`, gpu_count: 2 });
    const b = await newProvider(h, { gpu_name: `RTX_${otherTag}`, gpu_count: 2 });
    const renter = await h.newAccount();
    const body = {
      docker_image: 'ubuntu:24.04',
      primary_gpu: `rtx ${tag}`,
      gpu_count: 4,
      extra_gpus: [{ gpu_name: `rtx-${otherTag}`, max_price: 10 }],
    };
    const estimate = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/burst/orders/estimate', { key: renter.apiKey, body }),
    );
    expect(estimate.slots.map((s: { offer_id: string }) => s.offer_id)).toEqual([a.machineId, b.machineId]);
    expect(estimate.shortfall).toBe(0);
  });
});

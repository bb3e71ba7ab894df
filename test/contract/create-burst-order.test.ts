/** POST /v1/burst/orders: GPUs across machines, strict tiers under caps, all or nothing (SPEC 1.7, 2.10). */
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

const order = (key: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call(h.baseUrl, 'POST', '/v1/burst/orders', {
    key,
    body: { docker_image: 'ubuntu:24.04', pricing_type: 'hour', ...body },
    ...(headers === undefined ? {} : { headers }),
  });

describe('POST /v1/burst/orders', () => {
  it('201: the primary type first, cheapest machine first, then the fallback under its cap; each rental echoes its GPU and price', async () => {
    const [a100, h100] = [newId('g'), newId('g')];
    const cheap = await newProvider(h, { gpu_name: a100, gpu_count: 2, price_per_gpu_hour_usd: 1 });
    const dear = await newProvider(h, { gpu_name: a100, gpu_count: 2, price_per_gpu_hour_usd: 1.5 });
    const fallback = await newProvider(h, { gpu_name: h100, gpu_count: 8, price_per_gpu_hour_usd: 2 });
    await newProvider(h, { gpu_name: h100, gpu_count: 8, price_per_gpu_hour_usd: 3.5 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const placed = await placeBurst(h, renter.apiKey, {
      primary_gpu: a100,
      gpu_count: 7,
      extra_gpus: [{ gpu_name: h100, max_price: 2.5 }],
      disk_gb: 80,
    });
    expect(placed).toMatchObject({
      order_id: expect.stringMatching(/^burst_/),
      status: 'starting',
      desired_status: 'running',
      gpu_count: 7,
      placed_gpus: 7,
      primary_gpu: a100,
      primary_max_price: null,
      extra_gpus: [{ gpu_name: h100, max_price: 2.5 }],
      disk_gb: 80,
      pricing_type: 'hour',
    });
    const rentals = placed.instances.map((i: any) => [
      i.offer_id,
      i.gpu_name,
      i.gpu_count,
      i.unit_price_usd,
      i.disk_gb,
    ]);
    expect(rentals.sort((x: any[], y: any[]) => x[3] - y[3])).toEqual([
      [cheap.machineId, a100, 2, 1, 80],
      [dear.machineId, a100, 2, 1.5, 80],
      [fallback.machineId, h100, 3, 2, 80],
    ]);
    expect(placed.counts).toEqual({ pending: 3, running: 0, offline: 0, stopped: 0, terminated: 0 });
  });

  it('409 insufficient_capacity when fewer GPUs are free under the caps, nothing placed or held; all_or_nothing false keeps what is free', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu, gpu_count: 4, price_per_gpu_hour_usd: 1 });
    await newProvider(h, { gpu_name: gpu, gpu_count: 4, price_per_gpu_hour_usd: 3 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const refused = await order(renter.apiKey, {
      primary_gpu: gpu,
      primary_max_price: 2,
      gpu_count: 6,
      pricing_type: 'day',
    });
    expectNativeError(refused, 409, 'insufficient_capacity');
    expect(refused.body.data.meta).toMatchObject({ gpus_requested: 6, gpus_available: 4 });
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(4);
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(100));
    const partial = await placeBurst(h, renter.apiKey, {
      primary_gpu: gpu,
      primary_max_price: 2,
      gpu_count: 6,
      all_or_nothing: false,
    });
    expect(partial.placed_gpus).toBe(4);
  });

  it('with a volume_id, the whole order on one machine: the first that has every GPU, then always the volume’s own', async () => {
    const gpu = newId('g');
    await newProvider(h, { gpu_name: gpu, gpu_count: 2, price_per_gpu_hour_usd: 1 });
    const big = await newProvider(h, { gpu_name: gpu, gpu_count: 8, price_per_gpu_hour_usd: 2 });
    const other = await newProvider(h, { gpu_name: gpu, gpu_count: 8, price_per_gpu_hour_usd: 1.5 });
    const renter = await h.newAccount(undefined, { balanceUsd: 200 });
    const volume = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 100 } }),
      201,
    );
    const first = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 4, volume_id: volume.volume_id });
    expect(first.volume_id).toBe(volume.volume_id);
    expect(first.instances.map((i: any) => [i.offer_id, i.gpu_count, i.volume_id])).toEqual([
      [other.machineId, 4, volume.volume_id],
    ]);
    // Pinned now: the next order goes to the volume's machine even though a cheaper one is free.
    const second = await placeBurst(h, renter.apiKey, { primary_gpu: gpu, gpu_count: 4, volume_id: volume.volume_id });
    expect(second.instances.map((i: any) => i.offer_id)).toEqual([other.machineId]);
    expectNativeError(
      await order(renter.apiKey, { primary_gpu: gpu, gpu_count: 1, volume_id: volume.volume_id }),
      409,
      'insufficient_capacity',
    );
    expect(await h.deps.market.store.freeGpus(big.machineId)).toBe(8);
    expectNativeError(
      await order(renter.apiKey, { primary_gpu: gpu, gpu_count: 1, volume_id: 99_999_999 }),
      404,
      'volume_not_found',
    );
  });

  it('402 insufficient_balance when starting them all needs more than the balance; nothing placed', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu, gpu_count: 8, price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 50 });
    // A week of 8 GPUs at $1 less 20 % is $1,075.20.
    expectNativeError(
      await order(renter.apiKey, { primary_gpu: gpu, gpu_count: 8, pricing_type: 'week' }),
      402,
      'insufficient_balance',
    );
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(8);
  });

  it('400 naming the field for SPEC 2.10 and 8 bounds; an Idempotency-Key replays the order', async () => {
    const gpu = newId('g');
    await newProvider(h, { gpu_name: gpu, gpu_count: 4 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    for (const [body, field] of [
      [{ primary_gpu: gpu, gpu_count: 0 }, 'gpu_count'],
      [{ primary_gpu: gpu, gpu_count: 101 }, 'gpu_count'],
      [{ primary_gpu: gpu, gpu_count: 1, disk_gb: 19 }, 'disk_gb'],
      [{ primary_gpu: gpu, gpu_count: 1, disk_gb: 1025 }, 'disk_gb'],
      [{ primary_gpu: gpu, gpu_count: 1, extra_gpus: [{ gpu_name: 'A100' }] }, 'max_price'],
      [{ primary_gpu: 'RTX/4090', gpu_count: 1 }, 'primary_gpu'],
      [{ gpu_count: 1 }, 'primary_gpu'],
      [{ primary_gpu: gpu, gpu_count: 1, volume: 3 }, 'volume'],
    ] as const) {
      const response = await order(renter.apiKey, body);
      expectNativeError(response, 400, 'invalid_request');
      expect(JSON.stringify(response.body.data)).toContain(field);
    }
    const key = { 'idempotency-key': newId('idem') };
    const first = expectNativeOk(await order(renter.apiKey, { primary_gpu: gpu, gpu_count: 2 }, key), 201);
    const again = await order(renter.apiKey, { primary_gpu: gpu, gpu_count: 2 }, key);
    expect(expectNativeOk(again, 201).order_id).toBe(first.order_id);
    expectNativeError(await order(renter.apiKey, { primary_gpu: gpu, gpu_count: 3 }, key), 409, 'idempotency_conflict');
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/burst/orders', {
        body: { docker_image: 'x', primary_gpu: gpu, gpu_count: 1 },
      }),
      401,
      'authentication_required',
    );
  });
});

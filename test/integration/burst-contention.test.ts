/**
 * Issue 10 acceptance: ten burst orders placed at once for 60 GPUs when 50 are free never give one GPU to two
 * rentals, never take a GPU above its tier's price cap, and leave nothing behind for the orders that could not be
 * placed (no GPU held, no money held), on the embedded SQLite default and on PostgreSQL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';
import { harnessOn } from '../setup/suite-harness.js';

describe.each(HARNESS_DATABASES)('ten burst orders at once on $name', (database) => {
  const harness = harnessOn(database);
  let h: Harness;
  beforeAll(() => void (h = harness()));

  it('60 GPUs asked, 50 free: no GPU rented twice, no cap exceeded, nothing left behind by the orders refused', async () => {
    const [primary, fallback] = [newId('g'), newId('g')];
    // 30 primary GPUs at $1-$2 an hour, 20 fallback GPUs under the $0.80 cap, and 8 fallback GPUs above it.
    const machines = [
      ...[1, 1.2, 1.5, 1.8, 2].map((price) => ({ gpu_name: primary, gpu_count: 6, price_per_gpu_hour_usd: price })),
      ...[0.5, 0.7].map((price) => ({ gpu_name: fallback, gpu_count: 10, price_per_gpu_hour_usd: price })),
      { gpu_name: fallback, gpu_count: 8, price_per_gpu_hour_usd: 0.95 },
    ];
    const providers = [];
    for (const m of machines)
      providers.push({ ...(await newProvider(h, m)), price: m.price_per_gpu_hour_usd, gpuName: m.gpu_name });
    const renters = await Promise.all(Array.from({ length: 10 }, () => h.newAccount(undefined, { balanceUsd: 100 })));
    const body = {
      docker_image: 'ubuntu:24.04',
      primary_gpu: primary,
      gpu_count: 6,
      extra_gpus: [{ gpu_name: fallback, max_price: 0.8 }],
      pricing_type: 'hour',
    };
    const answers = await Promise.all(
      renters.map((r) => call(h.baseUrl, 'POST', '/v1/burst/orders', { key: r.apiKey, body })),
    );

    const placed = answers.filter((a) => a.status === 201).map((a) => expectNativeOk(a, 201));
    for (const refused of answers.filter((a) => a.status !== 201))
      expectNativeError(refused, 409, 'insufficient_capacity');
    expect(placed.length).toBeGreaterThanOrEqual(1);
    expect(placed.length).toBeLessThanOrEqual(8);

    const held = new Set<string>();
    for (const order of placed) {
      expect(order.placed_gpus).toBe(6);
      for (const rental of order.instances) {
        const provider = providers.find((p) => p.machineId === rental.offer_id)!;
        if (rental.gpu_name === fallback) expect(provider.price).toBeLessThanOrEqual(0.8);
        expect(rental.unit_price_usd).toBe(provider.price);
        for (const gpu of rental.gpu_indexes) {
          const slot = `${rental.offer_id}/${gpu}`;
          expect(held.has(slot), `${slot} rented twice`).toBe(false);
          held.add(slot);
        }
      }
    }
    let free = 0;
    for (const p of providers) free += await h.deps.market.store.freeGpus(p.machineId);
    expect(free).toBe(58 - held.size);
    // A refused order leaves its renter's money whole and no order behind.
    for (const [i, answer] of answers.entries()) {
      if (answer.status === 201) continue;
      expect(await h.deps.ledger.getBalance(renters[i]!.accountId)).toEqual(
        expect.objectContaining({ availableMicros: usdToMicros(100), heldMicros: 0n }),
      );
      expect(
        expectNativeOk(await call(h.baseUrl, 'GET', '/v1/burst/orders', { key: renters[i]!.apiKey })).orders,
      ).toEqual([]);
    }
  });
});

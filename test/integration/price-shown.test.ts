/**
 * The renter gets the price shown (docs/marketplace.md "the price shown"), on the embedded SQLite default and on
 * PostgreSQL: a provider raising its price from $0.01 to $4 per GPU-hour between a renter's view of the offer and
 * the rental cannot charge the new price before the notice period has passed; after it, a renter's cap refuses the
 * rental (nothing taken or held) and the answer echoes the price charged.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness } from '../setup/harness.js';
import { newProvider, type Provider } from '../setup/market.js';
import { harnessOn } from '../setup/suite-harness.js';

const NOTICE_MS = 10 * 60_000; // MARKET_PRICE_RISE_NOTICE_MS's default

describe.each(HARNESS_DATABASES)('the price shown on $name', (database) => {
  const clock = { now: Date.now() };
  // Machines stay online while the test's clock jumps past the notice.
  const harness = harnessOn(database, { MACHINE_OFFLINE_MS: String(24 * 60 * 60_000) }, { now: () => clock.now });
  let h: Harness;
  beforeAll(() => void (h = harness()));

  const offerOf = async (key: string, gpuName: string) =>
    expectNativeOk(await call(h.baseUrl, 'GET', `/v1/marketplace/offers?gpu_model=${gpuName}`, { key })).offers[0];
  const raise = async (provider: Provider, usd: number) =>
    expectNativeOk(
      await call(h.baseUrl, 'PATCH', `/v1/provider/machines/${provider.machineId}`, {
        key: provider.apiKey,
        body: { price_per_gpu_hour_usd: usd },
      }),
    );
  const rent = (key: string, provider: Provider, body: Record<string, unknown> = {}) =>
    call(h.baseUrl, 'POST', '/v1/instances', {
      key,
      body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour', ...body },
    });
  /** The notice passes and the sweeper's upkeep applies the rises due. */
  const noticePasses = async () => {
    clock.now += NOTICE_MS;
    await h.deps.market.machines.applyDuePriceRises();
  };

  it('$0.01 → $4 between the view and the rental: placed at $0.01 within the notice; after it, refused above the cap, else placed at $4', async () => {
    const gpuName = newId('g');
    const provider = await newProvider(h, { gpu_name: gpuName, price_per_gpu_hour_usd: 0.01 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    expect(await offerOf(renter.apiKey, gpuName)).toMatchObject({ price_per_gpu_hour_usd: 0.01, price_rise: null });
    await raise(provider, 4);
    // The offer still shows (and charges) $0.01, and says what comes when.
    const shown = await offerOf(renter.apiKey, gpuName);
    expect(shown).toMatchObject({
      price_per_gpu_hour_usd: 0.01,
      price_rise: { price_per_gpu_hour_usd: 4, applies_at: Math.ceil((clock.now + NOTICE_MS) / 1000) },
    });
    const capped = expectNativeOk(await rent(renter.apiKey, provider, { max_price_per_gpu_hour: 0.01 }), 201);
    expect(capped).toMatchObject({ unit_price_usd: 0.01, pricing_type: 'hour' });
    expect(expectNativeOk(await rent(renter.apiKey, provider), 201).unit_price_usd).toBe(0.01);

    await noticePasses();
    expect(await offerOf(renter.apiKey, gpuName)).toMatchObject({ price_per_gpu_hour_usd: 4, price_rise: null });
    const before = await h.deps.ledger.getBalance(renter.accountId);
    const free = await h.deps.market.store.freeGpus(provider.machineId);
    const refused = await rent(renter.apiKey, provider, { max_price_per_gpu_hour: 0.01, pricing_type: 'day' });
    expectNativeError(refused, 409, 'price_above_max');
    expect(refused.body.data.meta).toMatchObject({
      price_per_gpu_hour_usd: 4,
      fields: [{ loc: ['body', 'max_price_per_gpu_hour'] }],
    });
    expect(await h.deps.ledger.getBalance(renter.accountId)).toEqual(before);
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(free);
    expect(expectNativeOk(await rent(renter.apiKey, provider, { max_price_per_gpu_hour: 4 }), 201).unit_price_usd).toBe(
      4,
    );
    // The rentals placed within the notice keep $0.01.
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/instances/${capped.task_id}`, { key: renter.apiKey }))
        .unit_price_usd,
    ).toBe(0.01);
  });

  it('a burst order’s caps meet the price shown: placed at $0.01 within the notice, 409 insufficient_capacity under the cap after it', async () => {
    const gpuName = newId('g');
    const provider = await newProvider(h, { gpu_name: gpuName, gpu_count: 8, price_per_gpu_hour_usd: 0.01 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const order = (gpus: number) =>
      call(h.baseUrl, 'POST', '/v1/burst/orders', {
        key: renter.apiKey,
        body: {
          docker_image: 'ubuntu:24.04',
          primary_gpu: gpuName,
          primary_max_price: 0.01,
          gpu_count: gpus,
          pricing_type: 'hour',
        },
      });
    const estimate = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/burst/orders/estimate', {
        key: renter.apiKey,
        body: {
          docker_image: 'ubuntu:24.04',
          primary_gpu: gpuName,
          primary_max_price: 0.01,
          gpu_count: 2,
          pricing_type: 'hour',
        },
      }),
    );
    expect(estimate.slots).toMatchObject([{ price_per_gpu_hour_usd: 0.01 }]);
    await raise(provider, 4);
    expect(expectNativeOk(await order(2), 201).instances).toMatchObject([{ unit_price_usd: 0.01 }]);
    await noticePasses();
    const refused = await order(2);
    expectNativeError(refused, 409, 'insufficient_capacity');
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(6);
    expect((await h.deps.ledger.getBalance(renter.accountId)).heldMicros).toBe(0n);
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(100));
  });
});

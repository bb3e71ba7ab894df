/** GET /v1/marketplace/offers: online, listed machines with free GPUs, filtered strictly (SPEC 1.2), every plan priced (1.3). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';

let h: Harness;
let renter: string;
beforeAll(async () => {
  h = await startHarness();
  renter = (await h.newAccount()).apiKey;
});
afterAll(() => h.close());

const offers = async (query: string) =>
  expectNativeOk(await call(h.baseUrl, 'GET', `/v1/marketplace/offers?${query}`, { key: renter }));

describe('GET /v1/marketplace/offers', () => {
  it('prices every plan of an offer: minute = hour / 60, terms discounted, and what starting needs', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu, price_per_gpu_hour_usd: 0.6, min_gpus: 2 });
    const page = await offers(`gpu_model=${gpu}`);
    expect(page.total).toBe(1);
    expect(page.offers[0]).toEqual({
      offer_id: provider.machineId,
      gpu_name: gpu,
      gpu_count: 4,
      free_gpus: 4,
      min_gpus: 2,
      vram_gb: 24,
      cpu_cores: 32,
      ram_gb: 128,
      disk_gb: 1000,
      location: 'DE',
      verification: 'unverified',
      reliability: 1,
      price_per_gpu_hour_usd: 0.6,
      price_rise: null,
      discounts: { day: 10, week: 20, month: 30 },
      available_until: null,
      // The renter's balance is empty: no plan fits it.
      prices: {
        minute: { per_gpu_usd: 0.01, unit_seconds: 60, due_at_start_usd: 1.2, fits_balance: false },
        hour: { per_gpu_usd: 0.6, unit_seconds: 3600, due_at_start_usd: 1.2, fits_balance: false },
        day: { per_gpu_usd: 12.96, unit_seconds: 86_400, due_at_start_usd: 25.92, fits_balance: false },
        week: { per_gpu_usd: 80.64, unit_seconds: 604_800, due_at_start_usd: 161.28, fits_balance: false },
        month: { per_gpu_usd: 302.4, unit_seconds: 2_592_000, due_at_start_usd: 604.8, fits_balance: false },
      },
    });
  });

  it('filters by GPU model, VRAM, hourly price, location and free GPUs, sorted and paged', async () => {
    const [a, b] = [newId('g'), newId('g')];
    const cheap = await newProvider(h, { gpu_name: a, price_per_gpu_hour_usd: 0.3, vram_gb: 24, location: 'US' });
    const dear = await newProvider(h, {
      gpu_name: a,
      price_per_gpu_hour_usd: 1.5,
      vram_gb: 80,
      location: 'FI',
      gpu_count: 8,
    });
    const other = await newProvider(h, { gpu_name: b, price_per_gpu_hour_usd: 0.5 });
    const ids = async (query: string) => (await offers(query)).offers.map((o: { offer_id: string }) => o.offer_id);
    expect(await ids(`gpu_model=${a}`)).toEqual([cheap.machineId, dear.machineId]);
    expect(await ids(`gpu_model=${a}&gpu_model=${b}&sort=-price`)).toEqual([
      dear.machineId,
      other.machineId,
      cheap.machineId,
    ]);
    expect(await ids(`gpu_model=${a}&min_vram_gb=48`)).toEqual([dear.machineId]);
    expect(await ids(`gpu_model=${a}&max_price_per_hour=1`)).toEqual([cheap.machineId]);
    expect(await ids(`gpu_model=${a}&location=FI&location=SE`)).toEqual([dear.machineId]);
    expect(await ids(`gpu_model=${a}&min_gpus=5`)).toEqual([dear.machineId]);
    expect(await ids(`gpu_model=${a}&verified=true`)).toEqual([]);
    const page = await offers(`gpu_model=${a}&limit=1&offset=1`);
    expect(page.offers.map((o: { offer_id: string }) => o.offer_id)).toEqual([dear.machineId]);
    expect(page.total).toBe(2);
  });

  it('hides unlisted machines and machines whose agent fell silent', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu, listed: false });
    expect((await offers(`gpu_model=${gpu}`)).total).toBe(0);
    expectNativeOk(
      await call(h.baseUrl, 'PATCH', `/v1/provider/machines/${provider.machineId}`, {
        key: provider.apiKey,
        body: { listed: true },
      }),
    );
    expect((await offers(`gpu_model=${gpu}`)).total).toBe(1);
    await h.deps.market.store.updateMachine(provider.machineId, {
      lastHeartbeatMs: Date.now() - h.deps.config.MACHINE_OFFLINE_MS - 1,
    });
    expect((await offers(`gpu_model=${gpu}`)).total).toBe(0);
  });

  it('finds a GPU model however its name is typed: case, spaces, hyphens and underscores do not matter', async () => {
    const tag = newId('g').replace(/[^A-Za-z0-9]/g, '');
    const provider = await newProvider(h, { gpu_name: `RTX_${tag}` });
    for (const spelling of [`rtx_${tag}`, `RTX%20${tag}`, `rtx+${tag}`, `RTX-${tag}`, `rtx${tag}`]) {
      const page = await offers(`gpu_model=${spelling}`);
      expect(page.offers.map((o: { offer_id: string }) => o.offer_id)).toEqual([provider.machineId]);
      expect(page.offers[0].gpu_name).toBe(`RTX_${tag}`);
    }
  });

  it('400 invalid_request for a filter it does not know or a value in another unit, never silently ignored', async () => {
    for (const query of [
      'datacenter=eu-1',
      'min_vram_gb=24GB',
      'max_price_per_hour=%240.50',
      'location=Germany',
      'sort=score',
      'gpu_model=RTX%2F4090',
      'gpu_model=_4090',
    ]) {
      const response = await call(h.baseUrl, 'GET', `/v1/marketplace/offers?${query}`, { key: renter });
      expectNativeError(response, 400, 'invalid_request');
    }
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/marketplace/offers'), 401, 'authentication_required');
  });
});

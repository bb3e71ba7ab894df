/** POST /v1/provider/machines: a provider registers a machine with its inventory and listing (SPEC 1.6). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setVerification } from '../../src/domain/market/machines.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { MACHINE } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('POST /v1/provider/machines', () => {
  it('201: the machine, unverified, online, with the default discounts unless given', async () => {
    const provider = await h.newAccount();
    const until = Math.floor(Date.now() / 1000) + 86_400;
    const machine = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/provider/machines', {
        key: provider.apiKey,
        body: { ...MACHINE, min_gpus: 2, available_until: until, discounts: { day: 5, week: 25, month: 40 } },
      }),
      201,
    );
    expect(machine).toEqual({
      machine_id: expect.stringMatching(/^mch_/),
      name: 'rig-1',
      gpu_name: 'RTX_4090',
      gpu_count: 4,
      vram_gb: 24,
      cpu_cores: 32,
      ram_gb: 128,
      disk_gb: 1000,
      location: 'DE',
      price_per_gpu_hour_usd: 0.6,
      price_rise: null,
      min_gpus: 2,
      discounts: { day: 5, week: 25, month: 40 },
      available_until: until,
      listed: true,
      verification: 'unverified',
      reliability: 1,
      online: true,
      last_heartbeat_at: expect.any(Number),
      created_at: expect.any(Number),
    });
    const plain = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/provider/machines', { key: provider.apiKey, body: MACHINE }),
      201,
    );
    expect(plain).toMatchObject({ min_gpus: 1, discounts: { day: 10, week: 20, month: 30 }, available_until: null });
  });

  it('400 invalid_request naming the field: min_gpus above gpu_count, discounts above 40 % or falling with the term, bad location or GPU name, a missing field', async () => {
    const provider = await h.newAccount();
    const cases: [Record<string, unknown>, string][] = [
      [{ ...MACHINE, min_gpus: 5 }, 'min_gpus'],
      [{ ...MACHINE, discounts: { day: 10, week: 45, month: 45 } }, 'discounts'],
      [{ ...MACHINE, discounts: { day: 20, week: 10, month: 30 } }, 'discounts'],
      [{ ...MACHINE, location: 'Germany' }, 'location'],
      [{ ...MACHINE, gpu_name: 'RTX 4090' }, 'gpu_name'],
      [{ ...MACHINE, price_per_gpu_hour_usd: 0 }, 'price_per_gpu_hour_usd'],
      // The floor: a price that would round to $0 (or make a plan's price round to $0) is refused, naming it.
      [{ ...MACHINE, price_per_gpu_hour_usd: 1e-7 }, 'price_per_gpu_hour_usd'],
      [{ ...MACHINE, price_per_gpu_hour_usd: 0.0099 }, 'price_per_gpu_hour_usd'],
      [{ ...MACHINE, gpu_count: undefined }, 'gpu_count'],
      [{ ...MACHINE, wattage: 450 }, 'wattage'],
    ];
    for (const [body, field] of cases) {
      const response = await call(h.baseUrl, 'POST', '/v1/provider/machines', { key: provider.apiKey, body });
      expectNativeError(response, 400, 'invalid_request');
      expect(JSON.stringify(response.body.data)).toContain(field);
    }
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/provider/machines', { body: MACHINE }),
      401,
      'authentication_required',
    );
  });

  it('the price floor of $0.01 per GPU-hour is accepted, and every plan of it costs at least a micro-dollar', async () => {
    const provider = await h.newAccount();
    const machine = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/provider/machines', {
        key: provider.apiKey,
        body: { ...MACHINE, price_per_gpu_hour_usd: 0.01, discounts: { day: 40, week: 40, month: 40 } },
      }),
      201,
    );
    const { offers } = expectNativeOk(
      await call(h.baseUrl, 'GET', '/v1/marketplace/offers?gpu_model=RTX_4090&limit=200', { key: provider.apiKey }),
    );
    const offer = offers.find((o: { offer_id: string }) => o.offer_id === machine.machine_id);
    for (const plan of Object.values(offer.prices) as { per_gpu_usd: number; due_at_start_usd: number }[]) {
      expect(plan.per_gpu_usd).toBeGreaterThanOrEqual(0.000001);
      expect(plan.due_at_start_usd).toBeGreaterThan(0);
    }
  });

  it('409 too_many_unverified_machines past MARKET_MAX_UNVERIFIED_LISTED (10) listed unverified machines; unlisted or verified ones do not count', async () => {
    const provider = await h.newAccount();
    const register = (body: Record<string, unknown> = {}) =>
      call(h.baseUrl, 'POST', '/v1/provider/machines', { key: provider.apiKey, body: { ...MACHINE, ...body } });
    const first = expectNativeOk(await register(), 201);
    for (let n = 1; n < 10; n++) expectNativeOk(await register(), 201);
    const refused = await register();
    expectNativeError(refused, 409, 'too_many_unverified_machines');
    expect(refused.body.data.meta).toMatchObject({ unverified_listed: 10, max_unverified_listed: 10 });
    const hidden = expectNativeOk(await register({ listed: false }), 201);
    const relist = () =>
      call(h.baseUrl, 'PATCH', `/v1/provider/machines/${hidden.machine_id}`, {
        key: provider.apiKey,
        body: { listed: true },
      });
    expectNativeError(await relist(), 409, 'too_many_unverified_machines');
    // Another provider is not affected; an operator verifying one machine makes room.
    expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/provider/machines', { key: (await h.newAccount()).apiKey, body: MACHINE }),
      201,
    );
    await setVerification(h.deps.market.store, first.machine_id, 'verified');
    expect(expectNativeOk(await relist()).listed).toBe(true);
  });
});

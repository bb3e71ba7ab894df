/** GET /v1/provider/earnings: what the caller's machines earned, per machine and UTC day, less the platform fee. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { heartbeat, MACHINE, newProvider, runningRental } from '../setup/market.js';

const DAY = '2026-03-10';
const clock = { now: Date.parse(`${DAY}T12:00:00Z`) };
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MACHINE_OFFLINE_MS: String(24 * 3600_000) }, { now: () => clock.now });
});
afterAll(() => h.close());

describe('GET /v1/provider/earnings', () => {
  it('sums each machine’s settlements of the day: charged, and the provider’s 85 %', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 6 });
    const second = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/provider/machines', {
        key: provider.apiKey,
        body: { ...MACHINE, price_per_gpu_hour_usd: 12 },
      }),
      201,
    );
    const secondProvider = { ...provider, machineId: second.machine_id };
    const renter = await h.newAccount(undefined, { balanceUsd: 50 });
    const a = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour' });
    const b = await runningRental(h, renter.apiKey, secondProvider, { pricing_type: 'hour' });
    clock.now += 10 * 60_000;
    await heartbeat(h, provider, [{ instance_id: a.task_id, state: 'running' }]);
    await heartbeat(h, secondProvider, [{ instance_id: b.task_id, state: 'running' }]);
    for (const rental of [a, b])
      expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }));
    const earnings = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/provider/earnings?from=${DAY}&to=${DAY}`, { key: provider.apiKey }),
    );
    // 10 minutes at $6 and at $12 an hour: $1 and $2 charged.
    expect(earnings).toEqual({
      from: DAY,
      to: DAY,
      days: [
        { date: DAY, machine_id: provider.machineId, charged_usd: 1, earned_usd: 0.85, settlements: 1 },
        { date: DAY, machine_id: second.machine_id, charged_usd: 2, earned_usd: 1.7, settlements: 1 },
      ].sort((x, y) => x.machine_id.localeCompare(y.machine_id)),
      total_charged_usd: 3,
      total_earned_usd: 2.55,
    });
    expect(
      expectNativeOk(
        await call(h.baseUrl, 'GET', `/v1/provider/earnings?from=${DAY}&to=${DAY}`, { key: renter.apiKey }),
      ).days,
    ).toEqual([]);
    expectNativeError(
      await call(h.baseUrl, 'GET', '/v1/provider/earnings?from=2026-03-11&to=2026-03-10', { key: provider.apiKey }),
      400,
      'invalid_request',
    );
  });
});

/** DELETE /v1/instances/{task_id}: settled (a term ended early re-priced), the rest of its hold given back, GPUs released, the container removed. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { heartbeat, keepRunning, newProvider, runningRental } from '../setup/market.js';

const clock = { now: Date.now() };
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MACHINE_OFFLINE_MS: String(30 * 24 * 3600_000) }, { now: () => clock.now });
});
afterAll(() => h.close());

describe('DELETE /v1/instances/{task_id}', () => {
  it('terminates a month rental after a day: the day at the minute price (a term is a commitment), the rest back, the provider paid its share, the agent told to remove it', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 600 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'month' });
    await keepRunning(h, clock, provider, rental.task_id, 24 * 3600_000);
    const deleted = expectNativeOk(
      await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }),
    );
    // A month is 720 × $1 less 30 % = $504 ($16.80 a day); deleted after a day, that day costs 1,440 minutes at
    // $0.016667 (the hourly price / 60, rounded up to a micro-dollar): $24.00048.
    expect(deleted).toMatchObject({
      desired_status: 'terminated',
      status: 'terminated',
      status_reason: 'user',
      gpu_indexes: [],
      charged_usd: 24.00048,
    });
    expect(await h.deps.ledger.getBalance(renter.accountId)).toMatchObject({
      availableMicros: usdToMicros(600 - 24.00048),
      heldMicros: 0n,
    });
    expect((await h.deps.ledger.getBalance(provider.accountId)).availableMicros).toBe(
      24_000_480n - (24_000_480n * 15n) / 100n,
    );
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(4);
    const assignments = await heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
    expect(assignments).toContainEqual({
      instance_id: rental.task_id,
      desired_status: 'terminated',
      docker_image: '',
      disk_gb: 0,
      gpu_indexes: [],
      ssh_public_keys: [],
      volume: null,
    });
    expect(
      expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }))
        .updated_at,
    ).toBe(deleted.updated_at);
    expectNativeError(
      await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: provider.apiKey }),
      404,
      'instance_not_found',
    );
  });
});

/** POST /v1/instances/{task_id}/stop: settled, all billing stopped, GPUs released, a term's unused rest given back (SPEC 1.4). */
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

describe('POST /v1/instances/{task_id}/stop', () => {
  it('stops a metered rental: charged up to the stop, nothing after, its GPUs free again; stopping again changes nothing', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 0.6 });
    const renter = await h.newAccount(undefined, { balanceUsd: 5 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour', gpu_count: 4 });
    await keepRunning(h, clock, provider, rental.task_id, 30 * 60_000);
    const stopped = expectNativeOk(
      await call(h.baseUrl, 'POST', `/v1/instances/${rental.task_id}/stop`, { key: renter.apiKey }),
    );
    expect(stopped).toMatchObject({
      desired_status: 'stopped',
      status: 'stopped',
      status_reason: 'user',
      gpu_indexes: [],
      running_seconds: 1800,
      charged_usd: 1.2,
    });
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(4);
    clock.now += 3 * 3600_000;
    const later = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }),
    );
    expect(later).toMatchObject({ status: 'stopped', running_seconds: 1800, charged_usd: 1.2 });
    expect(
      expectNativeOk(await call(h.baseUrl, 'POST', `/v1/instances/${rental.task_id}/stop`, { key: renter.apiKey }))
        .updated_at,
    ).toBe(stopped.updated_at);
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(5 - 1.2));
    // The agent is told to stop the container.
    const assignments = await heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
    expect(assignments).toContainEqual(
      expect.objectContaining({ instance_id: rental.task_id, desired_status: 'stopped' }),
    );
  });

  it('stops a term plan early: the time used charged at the minute price, the rest of its hold back in the balance', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 200 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'week' });
    await keepRunning(h, clock, provider, rental.task_id, 42 * 3600_000); // a quarter of the week
    const stopped = expectNativeOk(
      await call(h.baseUrl, 'POST', `/v1/instances/${rental.task_id}/stop`, { key: renter.apiKey }),
    );
    // A week is 168 × $1 less 20 % = $134.40 ($33.60 a quarter); stopped early, its 2,520 minutes cost $0.016667 each.
    expect(stopped.charged_usd).toBe(42.00084);
    const balance = await h.deps.ledger.getBalance(renter.accountId);
    expect(balance.heldMicros).toBe(0n);
    expect(balance.availableMicros).toBe(usdToMicros(200 - 42.00084));
  });

  it('404 instance_not_found for another account’s rental', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 5 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour' });
    expectNativeError(
      await call(h.baseUrl, 'POST', `/v1/instances/${rental.task_id}/stop`, { key: provider.apiKey }),
      404,
      'instance_not_found',
    );
  });
});

/** GET /v1/instances/{task_id}: a rental settled up to now, with its history; billed only while its container runs. */
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

describe('GET /v1/instances/{task_id}', () => {
  it('charges the running time by the millisecond on a metered plan, credits the provider less the 15 % fee, and shows the history', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 0.6 });
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const created = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/instances', {
        key: renter.apiKey,
        body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'minute', gpu_count: 2 },
      }),
      201,
    );
    clock.now += 5 * 60_000; // pending: the container is not running yet, nothing accrues
    await heartbeat(h, provider, [{ instance_id: created.task_id, state: 'running' }]);
    await keepRunning(h, clock, provider, created.task_id, 10 * 60_000 + 30_000);
    const read = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/instances/${created.task_id}`, { key: renter.apiKey }),
    );
    // 10.5 minutes × 2 GPUs × $0.01 a minute.
    expect(read).toMatchObject({ status: 'running', running_seconds: 630, charged_usd: 0.21 });
    expect(read.history.map((e: { status: string; reason: string | null }) => [e.status, e.reason])).toEqual([
      ['pending', null],
      ['running', null],
    ]);
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(10 - 0.21));
    expect((await h.deps.ledger.getBalance(provider.accountId)).availableMicros).toBe(usdToMicros(0.21 * 0.85));
  });

  it('a term plan is charged out of its hold as it runs, never beyond the term', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 30 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'day' });
    await keepRunning(h, clock, provider, rental.task_id, 6 * 3600_000);
    const read = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }),
    );
    // A day is 24 × $1 less 10 % = $21.60, a quarter of it used.
    expect(read.charged_usd).toBe(5.4);
    const balance = await h.deps.ledger.getBalance(renter.accountId);
    expect(balance.heldMicros).toBe(usdToMicros(21.6 - 5.4));
    expect(balance.availableMicros).toBe(usdToMicros(30 - 21.6));
  });

  it('404 instance_not_found for another account’s or an unknown rental', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 5 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour' });
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: provider.apiKey }),
      404,
      'instance_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/instances/${newId('inst')}`, { key: renter.apiKey }),
      404,
      'instance_not_found',
    );
    expectNativeError(await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`), 401, 'authentication_required');
  });
});

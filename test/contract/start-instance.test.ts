/** POST /v1/instances/{task_id}/start: the same GPUs again, or 409 resources_unavailable; a term holds its rest again. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { keepRunning, newProvider, runningRental } from '../setup/market.js';

const clock = { now: Date.now() };
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ MACHINE_OFFLINE_MS: String(30 * 24 * 3600_000) }, { now: () => clock.now });
});
afterAll(() => h.close());

const act = (key: string, id: string, action: 'start' | 'stop') =>
  call(h.baseUrl, 'POST', `/v1/instances/${id}/${action}`, { key });

describe('POST /v1/instances/{task_id}/start', () => {
  it('starts a stopped term rental on its GPUs again, holding what is left of the term; starting it twice changes nothing', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 50 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'day', gpu_count: 2 });
    await keepRunning(h, clock, provider, rental.task_id, 12 * 3600_000);
    expectNativeOk(await act(renter.apiKey, rental.task_id, 'stop'));
    const started = expectNativeOk(await act(renter.apiKey, rental.task_id, 'start'));
    // Two GPUs for a day at $21.60 each; stopped after 12 hours, those cost 720 minutes × 2 GPUs × $0.016667, and what
    // is left of the day's $43.20 is held again.
    expect(started).toMatchObject({
      desired_status: 'running',
      status: 'pending',
      status_reason: null,
      gpu_indexes: [0, 1],
      charged_usd: 24.00048,
    });
    const balance = await h.deps.ledger.getBalance(renter.accountId);
    expect(balance.heldMicros).toBe(usdToMicros(43.2 - 24.00048));
    expect(balance.availableMicros).toBe(usdToMicros(50 - 43.2));
    expect(expectNativeOk(await act(renter.apiKey, rental.task_id, 'start')).updated_at).toBe(started.updated_at);
  });

  it('409 resources_unavailable when someone else rented its GPUs while it was stopped; nothing held', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), gpu_count: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 200 });
    const other = await h.newAccount(undefined, { balanceUsd: 200 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'week' });
    expectNativeOk(await act(renter.apiKey, rental.task_id, 'stop'));
    await runningRental(h, other.apiKey, provider, { pricing_type: 'hour' });
    const before = await h.deps.ledger.getBalance(renter.accountId);
    expectNativeError(await act(renter.apiKey, rental.task_id, 'start'), 409, 'resources_unavailable');
    expect(await h.deps.ledger.getBalance(renter.accountId)).toEqual(before);
  });

  it('402 insufficient_balance without an hour of runtime; 409 instance_terminated once deleted; 409 plan_expired once a term is used up', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 1.5 });
    const metered = await runningRental(h, renter.apiKey, provider, { pricing_type: 'minute' });
    await keepRunning(h, clock, provider, metered.task_id, 40 * 60_000);
    expectNativeOk(await act(renter.apiKey, metered.task_id, 'stop'));
    expectNativeError(await act(renter.apiKey, metered.task_id, 'start'), 402, 'insufficient_balance');
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${metered.task_id}`, { key: renter.apiKey }));
    expectNativeError(await act(renter.apiKey, metered.task_id, 'start'), 409, 'instance_terminated');

    const rich = await h.newAccount(undefined, { balanceUsd: 100 });
    const term = await runningRental(h, rich.apiKey, provider, { pricing_type: 'day' });
    await keepRunning(h, clock, provider, term.task_id, 25 * 3600_000);
    expectNativeOk(await act(rich.apiKey, term.task_id, 'stop'));
    expectNativeError(await act(rich.apiKey, term.task_id, 'start'), 409, 'plan_expired');
    expectNativeError(await act(provider.apiKey, term.task_id, 'start'), 404, 'instance_not_found');
  });
});

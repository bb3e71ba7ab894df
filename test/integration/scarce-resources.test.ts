/**
 * Scarce resources cost something or expire (docs/marketplace.md), on the embedded SQLite default and on
 * PostgreSQL: an SSH proxy port belongs to a rental asked to run (given back on stop, whoever stops it, taken again
 * on start); a rental its agent never runs is stopped after `RENTAL_PENDING_TTL_MS`, one offline after
 * `RENTAL_OFFLINE_TTL_MS`, their GPUs, hold and port given back; an account's pending rentals are capped; and a $0
 * account can rent nothing, however low the listing.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SqlTunnelStore } from '../../src/adapters/tunnel-store/sql.js';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness } from '../setup/harness.js';
import { heartbeat, newProvider, type Provider } from '../setup/market.js';
import { harnessOn } from '../setup/suite-harness.js';

const PENDING_TTL_MS = 30 * 60_000; // RENTAL_PENDING_TTL_MS's default
const OFFLINE_TTL_MS = 60 * 60_000; // RENTAL_OFFLINE_TTL_MS's default
const MACHINE_OFFLINE_MS = 24 * 60 * 60_000;

describe.each(HARNESS_DATABASES)('scarce resources on $name', (database) => {
  const clock = { now: Date.now() };
  const harness = harnessOn(
    database,
    { MACHINE_OFFLINE_MS: String(MACHINE_OFFLINE_MS), RENTAL_MAX_PENDING_PER_ACCOUNT: '3' },
    { now: () => clock.now },
  );
  let h: Harness;
  beforeAll(() => void (h = harness()));

  const rent = (key: string, provider: Provider, body: Record<string, unknown> = {}) =>
    call(h.baseUrl, 'POST', '/v1/instances', {
      key,
      body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour', ...body },
    });
  const act = async (key: string, id: string, action: 'start' | 'stop') =>
    expectNativeOk(await call(h.baseUrl, 'POST', `/v1/instances/${id}/${action}`, { key }));
  const read = async (key: string, id: string) =>
    expectNativeOk(await call(h.baseUrl, 'GET', `/v1/instances/${id}`, { key }));
  /** The port the database holds for the rental (the one every gateway process listens on). */
  const portOf = (id: string) => new SqlTunnelStore(h.deps.db).portOf(id);

  it('a port is held only while the rental is asked to run: given back on stop, taken again on start, 409 instance_not_running to ensure meanwhile', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const rental = expectNativeOk(await rent(renter.apiKey, provider), 201);
    expect(rental.ssh_port).toEqual(expect.any(Number));
    await heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
    const stopped = await act(renter.apiKey, rental.task_id, 'stop');
    expect(stopped).toMatchObject({ status: 'stopped', ssh_host: null, ssh_port: null });
    expect(await portOf(rental.task_id)).toBeNull();
    expectNativeError(
      await call(h.baseUrl, 'POST', `/v1/instances/${rental.task_id}/ssh-proxy/ensure`, { key: renter.apiKey }),
      409,
      'instance_not_running',
    );
    const started = await act(renter.apiKey, rental.task_id, 'start');
    expect(started.ssh_port).toEqual(expect.any(Number));
    expect(await portOf(rental.task_id)).toBe(started.ssh_port);
    // A stop the renter did not ask for (the container failed) gives the port back at the proxy's next upkeep.
    await heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'failed' }]);
    await h.deps.market.sshProxy.sync();
    expect(await read(renter.apiKey, rental.task_id)).toMatchObject({
      status: 'stopped',
      status_reason: 'error',
      ssh_port: null,
    });
    expect(await portOf(rental.task_id)).toBeNull();
  });

  it('a rental never run stops after RENTAL_PENDING_TTL_MS (start_timeout): its GPUs, hold and port given back', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), gpu_count: 2 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const rental = expectNativeOk(await rent(renter.apiKey, provider, { pricing_type: 'day', gpu_count: 2 }), 201);
    expect((await h.deps.ledger.getBalance(renter.accountId)).heldMicros).toBeGreaterThan(0n);
    clock.now += PENDING_TTL_MS - 1000;
    await h.deps.market.rentals.sweep();
    expect((await read(renter.apiKey, rental.task_id)).status).toBe('pending');
    clock.now += 2000;
    await h.deps.market.rentals.sweep();
    await h.deps.market.sshProxy.sync();
    const expired = await read(renter.apiKey, rental.task_id);
    expect(expired).toMatchObject({
      status: 'stopped',
      desired_status: 'stopped',
      status_reason: 'start_timeout',
      gpu_indexes: [],
      ssh_port: null,
      charged_usd: 0,
    });
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(2);
    expect(await h.deps.ledger.getBalance(renter.accountId)).toMatchObject({
      heldMicros: 0n,
      availableMicros: usdToMicros(100),
    });
    expect(await portOf(rental.task_id)).toBeNull();
  });

  it('409 too_many_pending_rentals past the account’s cap (rentals, starts and burst orders alike), nothing taken or held; a rental run makes room', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu, gpu_count: 8 });
    const renter = await h.newAccount(undefined, { balanceUsd: 500 });
    const placed = [];
    for (let n = 0; n < 3; n++)
      placed.push(expectNativeOk(await rent(renter.apiKey, provider, { pricing_type: 'day' }), 201));
    const before = await h.deps.ledger.getBalance(renter.accountId);
    const refused = await rent(renter.apiKey, provider, { pricing_type: 'day' });
    expectNativeError(refused, 409, 'too_many_pending_rentals');
    expect(refused.body.data.meta).toMatchObject({ pending_rentals: 3, max_pending_rentals: 3 });
    const other = await newProvider(h, { gpu_name: gpu, gpu_count: 1 });
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/burst/orders', {
        key: renter.apiKey,
        body: { docker_image: 'ubuntu:24.04', primary_gpu: gpu, gpu_count: 1, pricing_type: 'day' },
      }),
      409,
      'too_many_pending_rentals',
    );
    expect(await h.deps.ledger.getBalance(renter.accountId)).toEqual(before);
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(5);
    expect(await h.deps.market.store.freeGpus(other.machineId)).toBe(1);
    // Another account is not affected.
    expectNativeOk(await rent((await h.newAccount(undefined, { balanceUsd: 100 })).apiKey, provider), 201);
    await heartbeat(h, provider, [{ instance_id: placed[0].task_id, state: 'running' }]);
    const fourth = expectNativeOk(await rent(renter.apiKey, provider, { pricing_type: 'hour' }), 201);
    // Starting a stopped rental makes it pending again: it counts too.
    await act(renter.apiKey, fourth.task_id, 'stop');
    expectNativeOk(await rent(renter.apiKey, provider, { pricing_type: 'hour' }), 201);
    expectNativeError(
      await call(h.baseUrl, 'POST', `/v1/instances/${fourth.task_id}/start`, { key: renter.apiKey }),
      409,
      'too_many_pending_rentals',
    );
  });

  it('ten rentals at once past a cap of 3: never more than 3 pending, those refused take nothing', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), gpu_count: 16 });
    const renter = await h.newAccount(undefined, { balanceUsd: 500 });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => rent(renter.apiKey, provider, { pricing_type: 'day' })),
    );
    const placed = answers.filter((a) => a.status === 201);
    for (const refused of answers.filter((a) => a.status !== 201))
      expectNativeError(refused, 409, 'too_many_pending_rentals');
    expect(placed.length).toBeLessThanOrEqual(3);
    expect(await h.deps.market.store.pendingCount(renter.accountId)).toBe(placed.length);
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(16 - placed.length);
    expect((await h.deps.ledger.getBalance(renter.accountId)).heldMicros).toBe(
      BigInt(placed.length) * usdToMicros(12.96),
    ); // a day of one GPU at $0.60
  });

  it('a $0 account rents nothing, on any plan, even at the price floor: nothing taken, no port', async () => {
    const provider = await newProvider(h, {
      gpu_name: newId('g'),
      price_per_gpu_hour_usd: 0.01,
      discounts: { day: 40, week: 40, month: 40 },
    });
    const broke = await h.newAccount();
    for (const pricing_type of ['minute', 'hour', 'day', 'week', 'month'])
      expectNativeError(await rent(broke.apiKey, provider, { pricing_type }), 402, 'insufficient_balance');
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(4);
    expect(await h.deps.market.store.pendingCount(broke.accountId)).toBe(0);
  });

  // Last: it moves the clock past MACHINE_OFFLINE_MS, so every machine registered before is offline afterwards.
  it('a rental offline for RENTAL_OFFLINE_TTL_MS is stopped (host_offline): its GPUs, hold and port given back', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const rental = expectNativeOk(await rent(renter.apiKey, provider, { pricing_type: 'day' }), 201);
    await heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
    clock.now += MACHINE_OFFLINE_MS + 1000; // the agent falls silent
    await h.deps.market.rentals.sweep();
    expect(await read(renter.apiKey, rental.task_id)).toMatchObject({
      status: 'offline',
      desired_status: 'running',
      ssh_port: rental.ssh_port,
    });
    clock.now += OFFLINE_TTL_MS + 1000;
    await h.deps.market.rentals.sweep();
    await h.deps.market.sshProxy.sync();
    expect(await read(renter.apiKey, rental.task_id)).toMatchObject({
      status: 'stopped',
      desired_status: 'stopped',
      status_reason: 'host_offline',
      gpu_indexes: [],
      ssh_port: null,
    });
    expect(await portOf(rental.task_id)).toBeNull();
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(4);
    expect((await h.deps.ledger.getBalance(renter.accountId)).heldMicros).toBe(0n);
  });
});

/**
 * Rentals billed by the sweeper (SPEC 1.4, 1.6, 4.5; DESIGN.md 3 "Balance runs out"), on the embedded SQLite default
 * and on PostgreSQL: a metered rental on a balance that covers three minutes stops itself with reason
 * `insufficient_balance` within the fourth; the balance is never negative; the provider is credited exactly the
 * renter's charge less the fee; a stopped rental accrues nothing. A machine that falls silent is billed up to its last
 * heartbeat and marked offline; its agent coming back resumes the rental.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { microsToUsd, usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness } from '../setup/harness.js';
import { heartbeat, newProvider, runningRental } from '../setup/market.js';
import { harnessOn } from '../setup/suite-harness.js';

const SWEEP_MS = 15_000;

describe.each(HARNESS_DATABASES)('rental billing on $name', (database) => {
  const clock = { now: Date.now() };
  // The test runs the sweeps itself, one per RENTAL_SWEEP_MS of its clock.
  const harness = harnessOn(
    database,
    { RENTAL_SWEEP_MS: String(SWEEP_MS), MACHINE_OFFLINE_MS: '90000' },
    { now: () => clock.now },
  );
  let h: Harness;
  beforeAll(() => void (h = harness()));

  /** Moves the clock in sweeper steps, the agent heartbeating at each, and sweeps; answers the balances seen. */
  async function run(ms: number, beat: () => Promise<unknown>, accountId: string): Promise<bigint[]> {
    const seen: bigint[] = [];
    for (let t = 0; t < ms; t += SWEEP_MS) {
      clock.now += SWEEP_MS;
      await beat();
      await h.deps.market.rentals.sweep();
      seen.push((await h.deps.ledger.getBalance(accountId)).availableMicros);
    }
    return seen;
  }

  it('a balance worth three minutes stops the rental within the fourth, never below zero, the provider paid the charge less 15 %', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 60 }); // $1 a minute per GPU
    // The hour of runtime a metered start needs is checked at creation; then the balance is spent down to 3 minutes.
    const renter = await h.newAccount(undefined, { balanceUsd: 60 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'minute' });
    await h.deps.ledger.debit({
      id: newId('spend'),
      accountId: renter.accountId,
      amountMicros: usdToMicros(57),
      nowMs: clock.now,
    });
    const beat = () => heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
    const balances = await run(5 * 60_000, beat, renter.accountId);
    expect(balances.every((b) => b >= 0n)).toBe(true);
    const read = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }),
    );
    expect(read).toMatchObject({
      status: 'stopped',
      desired_status: 'stopped',
      status_reason: 'insufficient_balance',
      gpu_indexes: [],
    });
    expect(read.running_seconds).toBeGreaterThanOrEqual(180);
    expect(read.running_seconds).toBeLessThan(240);
    const charged = usdToMicros(read.charged_usd);
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(3) - charged);
    const provided = (await h.deps.ledger.getBalance(provider.accountId)).availableMicros;
    expect(provided).toBe(charged - (charged * 15n) / 100n); // the fee is rounded once, on the total
    expect(await h.deps.ledger.sumOfAllBalances()).toBe(0n);

    // Stopped, it accrues nothing, however long it stays so.
    await run(10 * 60_000, beat, renter.accountId);
    const later = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }),
    );
    expect(later.charged_usd).toBe(read.charged_usd);
    expect(later.running_seconds).toBe(read.running_seconds);
  });

  it('42 reads a second apart settle nothing yet show what is owed; the fee is taken on the total, never lost to rounding', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 0.02 }); // 5.6 micro-dollars a second
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour' });
    const beat = () => heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
    const read = async () =>
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }));
    for (let second = 1; second <= 42; second++) {
      clock.now += 1000;
      await beat();
      expect(await read()).toMatchObject({
        running_seconds: second,
        charged_usd: microsToUsd((20_000n * BigInt(second)) / 3600n),
      });
    }
    expect(await h.deps.market.store.settlements([rental.task_id], 100)).toEqual([]);
    const listed = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/instances', { key: renter.apiKey })).instances;
    expect(listed[0]).toMatchObject({ task_id: rental.task_id, charged_usd: microsToUsd((20_000n * 42n) / 3600n) });
    // A minute of running time unsettled: the next read settles it, once.
    clock.now += 18_000;
    await beat();
    await read();
    await read();
    expect(await h.deps.market.store.settlements([rental.task_id], 100)).toHaveLength(1);
    const deleted = expectNativeOk(
      await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }),
    );
    const charged = usdToMicros(deleted.charged_usd);
    expect(charged).toBe((20_000n * 60n) / 3600n);
    expect((await h.deps.ledger.getBalance(provider.accountId)).availableMicros).toBe(charged - (charged * 15n) / 100n);
  });

  it('a machine that falls silent: billed up to its last heartbeat, offline, then running again when its agent is back', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 6 }); // $0.10 a minute
    const renter = await h.newAccount(undefined, { balanceUsd: 50 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour' });
    const beat = () => heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
    await run(60_000, beat, renter.accountId);
    await run(3 * 60_000, async () => undefined, renter.accountId); // silent for three minutes
    const offline = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }),
    );
    expect(offline).toMatchObject({
      status: 'offline',
      status_reason: 'host_offline',
      desired_status: 'running',
      running_seconds: 60,
      charged_usd: 0.1,
    });
    await run(60_000, beat, renter.accountId);
    const back = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }),
    );
    expect(back).toMatchObject({ status: 'running', status_reason: null });
    expect(back.running_seconds).toBe(60 + 45);
    expect(back.history.map((e: { status: string }) => e.status)).toEqual(['pending', 'running', 'offline', 'running']);
  });
});

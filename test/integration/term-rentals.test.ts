/**
 * Day, week and month rentals (DESIGN.md 3 "Rentals: plans"), on the embedded SQLite default and on PostgreSQL.
 * A term is a commitment (issue 23 item 8): stopped or deleted early, the time used is re-priced at the minute price
 * (at most the term's price) and the provider's share follows; what was paid counts toward the term. A term's hold
 * outlives the rental however long it waits (issue 23 item 12): the sweeper renews it, replaces one gone, and stops
 * the rental when the balance cannot hold the rest of the term.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness } from '../setup/harness.js';
import { keepRunning, newProvider, runningRental } from '../setup/market.js';
import { harnessOn } from '../setup/suite-harness.js';

const HOUR_MS = 3600_000;
const DAY_MS = 24 * HOUR_MS;

describe.each(HARNESS_DATABASES)('term rentals on $name', (database) => {
  const clock = { now: Date.now() };
  // Pending rentals may wait as long as the operator allows (RENTAL_PENDING_TTL_MS): here, longer than a term.
  const harness = harnessOn(
    database,
    { MACHINE_OFFLINE_MS: String(365 * DAY_MS), RENTAL_PENDING_TTL_MS: String(30 * DAY_MS) },
    { now: () => clock.now },
  );
  let h: Harness;
  beforeAll(() => void (h = harness()));

  // $6 an hour per GPU: $0.10 a minute; the default discounts make a day $129.60 and a 30-day month $3,024.
  const provider = () => newProvider(h, { gpu_name: newId('g'), price_per_gpu_hour_usd: 6 });
  const rentalPath = (id: string) => `/v1/instances/${id}`;
  const fee = (charged: bigint) => (charged * 15n) / 100n;

  it('a month plan deleted after 39 s pays 39 s at the minute price, not the discount; the provider’s share follows', async () => {
    const p = await provider();
    const renter = await h.newAccount(undefined, { balanceUsd: 4000 });
    const rental = await runningRental(h, renter.apiKey, p, { pricing_type: 'month' });
    await keepRunning(h, clock, p, rental.task_id, 39_000);
    const deleted = expectNativeOk(await call(h.baseUrl, 'DELETE', rentalPath(rental.task_id), { key: renter.apiKey }));
    const charged = usdToMicros(0.065); // 39 s at $0.10 a minute (the month's pro rata would be $0.0455)
    expect(usdToMicros(deleted.charged_usd)).toBe(charged);
    expect(await h.deps.ledger.getBalance(renter.accountId)).toEqual(
      expect.objectContaining({ availableMicros: usdToMicros(4000) - charged, heldMicros: 0n }),
    );
    expect((await h.deps.ledger.getBalance(p.accountId)).availableMicros).toBe(charged - fee(charged));
    const earned = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/provider/earnings', { key: p.apiKey }));
    expect(earned.total_charged_usd).toBe(0.065);
  });

  it('stopped early and started again, what was paid counts toward the term; a term run out costs its price, no more', async () => {
    const p = await provider();
    const renter = await h.newAccount(undefined, { balanceUsd: 200 });
    const rental = await runningRental(h, renter.apiKey, p, { pricing_type: 'day' });
    await keepRunning(h, clock, p, rental.task_id, 10 * 60_000);
    const stopped = expectNativeOk(
      await call(h.baseUrl, 'POST', `${rentalPath(rental.task_id)}/stop`, { key: renter.apiKey }),
    );
    expect(stopped.charged_usd).toBe(1); // 10 minutes at $0.10 (pro rata: $0.90)
    expect((await h.deps.ledger.getBalance(renter.accountId)).heldMicros).toBe(0n);
    // Started again: the rest of the day's price is held, and nothing more is owed until the pro rata passes $1.
    expectNativeOk(await call(h.baseUrl, 'POST', `${rentalPath(rental.task_id)}/start`, { key: renter.apiKey }));
    expect((await h.deps.ledger.getBalance(renter.accountId)).heldMicros).toBe(usdToMicros(128.6));
    await keepRunning(h, clock, p, rental.task_id, 0);
    await keepRunning(h, clock, p, rental.task_id, 60_000);
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', rentalPath(rental.task_id), { key: renter.apiKey })).charged_usd,
    ).toBe(1);
    // Run past the point where the minute price reaches the day's: deleting it costs the day's price.
    await keepRunning(h, clock, p, rental.task_id, 23 * HOUR_MS);
    const deleted = expectNativeOk(await call(h.baseUrl, 'DELETE', rentalPath(rental.task_id), { key: renter.apiKey }));
    expect(deleted.charged_usd).toBe(129.6);
    expect(await h.deps.ledger.getBalance(renter.accountId)).toEqual(
      expect.objectContaining({ availableMicros: usdToMicros(200 - 129.6), heldMicros: 0n }),
    );
  });

  it('a rental pending past its term keeps its hold: the sweeper renews it however long it waits', async () => {
    const p = await provider();
    const renter = await h.newAccount(undefined, { balanceUsd: 200 });
    const created = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/instances', {
        key: renter.apiKey,
        body: { offer_id: p.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'day' },
      }),
      201,
    );
    for (let waited = 0; waited < 5 * DAY_MS; waited += 6 * HOUR_MS) {
      clock.now += 6 * HOUR_MS;
      await h.deps.market.rentals.sweep();
    }
    const rental = (await h.deps.market.store.getInstance(created.task_id))!;
    const hold = (await h.deps.ledger.getHold(rental.holdId!))!;
    expect(hold).toMatchObject({ status: 'pending', amountMicros: usdToMicros(129.6) });
    expect(hold.expiresAtMs).toBeGreaterThan(clock.now + DAY_MS);
  });

  it('a hold gone is replaced by a new one of the rest of the term; a balance that cannot hold it stops the rental', async () => {
    const p = await provider();
    const renter = await h.newAccount(undefined, { balanceUsd: 300 });
    const rental = await runningRental(h, renter.apiKey, p, { pricing_type: 'day' });
    /** What a hold expired under a rental looks like: released, and the sweeper's check due. */
    const loseHold = async () => {
      const current = (await h.deps.market.store.getInstance(rental.task_id))!;
      await h.deps.ledger.release({ holdId: current.holdId!, nowMs: clock.now });
      await h.deps.market.store.change(current.id, current.version, { patch: { holdRenewAtMs: clock.now } });
    };
    await loseHold();
    await keepRunning(h, clock, p, rental.task_id, 0);
    await h.deps.market.rentals.sweep();
    const renewed = (await h.deps.market.store.getInstance(rental.task_id))!;
    expect(await h.deps.ledger.getHold(renewed.holdId!)).toMatchObject({
      status: 'pending',
      amountMicros: usdToMicros(129.6) - renewed.chargedMicros,
    });

    await loseHold();
    await h.deps.ledger.debit({
      id: newId('spend'),
      accountId: renter.accountId,
      amountMicros: (await h.deps.ledger.getBalance(renter.accountId)).availableMicros,
      nowMs: clock.now,
    });
    await keepRunning(h, clock, p, rental.task_id, 0);
    await h.deps.market.rentals.sweep();
    const read = expectNativeOk(await call(h.baseUrl, 'GET', rentalPath(rental.task_id), { key: renter.apiKey }));
    expect(read).toMatchObject({ status: 'stopped', status_reason: 'insufficient_balance' });
    expect((await h.deps.ledger.getBalance(renter.accountId)).heldMicros).toBe(0n);
  });
});

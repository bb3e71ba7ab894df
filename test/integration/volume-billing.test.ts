/**
 * Volumes billed by the sweeper (SPEC 1.8; src/domain/market/volumes.ts), on the embedded SQLite default and on
 * PostgreSQL: charged per millisecond while they exist, the provider paid their share once the volume is on their
 * machine, a balance that runs out never goes negative, and a settlement recorded but not posted (a crash between
 * the two) is posted once, under its own id.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';
import { harnessOn } from '../setup/suite-harness.js';

const DAY_MS = 24 * 3600_000;

describe.each(HARNESS_DATABASES)('volume billing on $name', (database) => {
  const clock = { now: Date.now() };
  const harness = harnessOn(
    database,
    { VOLUME_USD_PER_GB_MONTH: '0.3', MACHINE_OFFLINE_MS: String(365 * DAY_MS) },
    { now: () => clock.now },
  );
  let h: Harness;
  beforeAll(() => void (h = harness()));

  const createVolume = async (key: string, sizeGb: number) =>
    expectNativeOk(await call(h.baseUrl, 'POST', '/v1/volumes', { key, body: { size_gb: sizeGb } }), 201);

  it('charges every volume as time passes; once on a machine, the provider gets the charge less the fee', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const volume = await createVolume(renter.apiKey, 100); // $30 a month: $1 a day
    clock.now += DAY_MS;
    // The rental that pins it settles its first day first: that day was on no machine, so no provider's.
    const rental = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/instances', {
        key: renter.apiKey,
        body: {
          offer_id: provider.machineId,
          docker_image: 'ubuntu:24.04',
          pricing_type: 'hour',
          volume_id: volume.volume_id,
        },
      }),
      201,
    );
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(99));
    expect((await h.deps.ledger.getBalance(provider.accountId)).availableMicros).toBe(0n);
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }));
    clock.now += 2 * DAY_MS;
    await h.deps.market.volumes.sweep();
    await h.deps.market.volumes.sweep(); // nothing more: settled up to now
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(97));
    expect((await h.deps.ledger.getBalance(provider.accountId)).availableMicros).toBe(usdToMicros(1.7));
    const earned = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/provider/earnings', { key: provider.apiKey }));
    expect(JSON.stringify(earned)).toContain('1.7');
  });

  it('a balance that runs out is taken to zero, never below; the rest is the platform’s loss', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 3 });
    await createVolume(renter.apiKey, 10); // $3 a month: $0.10 a day
    clock.now += 40 * DAY_MS; // $4 owed
    await h.deps.market.volumes.sweep();
    const balance = await h.deps.ledger.getBalance(renter.accountId);
    expect(balance.availableMicros).toBe(0n);
    expect(balance.availableMicros + balance.heldMicros).toBeGreaterThanOrEqual(0n);
  });

  it('a settlement recorded but not posted is posted once, under its own id', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const created = await createVolume(renter.apiKey, 100);
    const volume = (await h.deps.market.store.volumes.get(created.volume_id))!;
    // What a process that died between recording and posting leaves behind.
    await h.deps.market.store.volumes.change(volume.id, volume.version, {
      patch: {
        settleSeq: 1,
        settledUntilMs: volume.createdAtMs + DAY_MS,
        chargedMicros: usdToMicros(1),
        pendingChargeMicros: usdToMicros(1),
      },
      settlement: {
        recorded: {
          volumeId: volume.id,
          seq: 1,
          machineId: null,
          providerAccountId: null,
          chargedMicros: usdToMicros(1),
          providerMicros: null,
          atMs: volume.createdAtMs + DAY_MS,
        },
      },
    });
    clock.now = volume.createdAtMs + DAY_MS;
    await h.deps.market.volumes.sweep();
    await h.deps.market.volumes.sweep();
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(9));
    expect(await h.deps.market.store.volumes.get(volume.id)).toMatchObject({
      settleSeq: 1,
      pendingChargeMicros: 0n,
      chargedMicros: usdToMicros(1),
    });
  });
});

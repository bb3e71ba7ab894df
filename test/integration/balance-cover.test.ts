/**
 * Issue 23 item 6: no check-then-insert on money, on the embedded SQLite default and on PostgreSQL. Every rule "the
 * balance must cover X" (a volume's day of storage and the account's other volumes', a metered rental's hour of
 * runtime and the account's other metered rentals', a burst order's start) holds under 20 parallel requests: exactly
 * what the balance covers is created, the rest answer 402, and no reservation is left held.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, type JsonResponse } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';
import { harnessOn } from '../setup/suite-harness.js';

const PARALLEL = 20;

describe.each(HARNESS_DATABASES)('balance rules under parallel requests on $name', (database) => {
  // $0.10 per GB-month (the default): a 1400 GB volume costs $4.67 a day.
  const harness = harnessOn(database, { VOLUME_USD_PER_GB_MONTH: '0.1' });
  let h: Harness;
  beforeAll(() => void (h = harness()));

  /** Sends the same request `PARALLEL` times at once; answers the ones that created something, having checked the refusals. */
  async function inParallel(send: () => Promise<JsonResponse>): Promise<JsonResponse[]> {
    const answers = await Promise.all(Array.from({ length: PARALLEL }, send));
    for (const refused of answers.filter((a) => a.status !== 201))
      expectNativeError(refused, 402, 'insufficient_balance');
    return answers.filter((a) => a.status === 201).map((a) => ({ ...a, body: expectNativeOk(a, 201) }));
  }

  async function expectNothingHeld(accountId: string, availableUsd: number): Promise<void> {
    expect(await h.deps.ledger.getBalance(accountId)).toEqual(
      expect.objectContaining({ heldMicros: 0n, availableMicros: BigInt(availableUsd * 1e6) }),
    );
  }

  it('20 parallel 1400 GB volumes from a $5 account: one is created (a day of all of them must be available)', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 5 });
    const created = await inParallel(() =>
      call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 1400 } }),
    );
    expect(created).toHaveLength(1);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/volumes', { key: renter.apiKey })).volumes).toHaveLength(1);
    await expectNothingHeld(renter.accountId, 5);
  });

  it('20 parallel hourly rentals from a balance of two and a half hours of one: two are placed (the runway is the account’s)', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), gpu_count: 32, price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 2.5 });
    const rent = () =>
      call(h.baseUrl, 'POST', '/v1/instances', {
        key: renter.apiKey,
        body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour' },
      });
    expect(await inParallel(rent)).toHaveLength(2);
    await expectNothingHeld(renter.accountId, 2.5);
    // One more is refused one at a time too: two hours are spoken for, whatever each rental alone would need.
    expectNativeError(await rent(), 402, 'insufficient_balance');
  });

  it('20 parallel burst orders of one metered GPU from a balance of one hour and a half: one order is placed', async () => {
    const gpuName = newId('g');
    await newProvider(h, { gpu_name: gpuName, gpu_count: 32, price_per_gpu_hour_usd: 1 });
    const renter = await h.newAccount(undefined, { balanceUsd: 1.5 });
    const body = { docker_image: 'ubuntu:24.04', primary_gpu: gpuName, gpu_count: 1, pricing_type: 'hour' };
    expect(
      await inParallel(() => call(h.baseUrl, 'POST', '/v1/burst/orders', { key: renter.apiKey, body })),
    ).toHaveLength(1);
    await expectNothingHeld(renter.accountId, 1.5);
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', '/v1/burst/orders', { key: renter.apiKey })).orders,
    ).toHaveLength(1);
  });
});

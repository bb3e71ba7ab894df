/**
 * DELETE /v1/volumes/{volume_id}: billing stops and the volume is charged up to now; 409 volume_in_use while a rental
 * that is not deleted has it; the provider it sits with was paid their share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';

const clock = { now: Date.now() };
let h: Harness;
beforeAll(async () => {
  h = await startHarness(
    { VOLUME_USD_PER_GB_MONTH: '0.1', MACHINE_OFFLINE_MS: String(30 * 24 * 3600_000) },
    { now: () => clock.now },
  );
});
afterAll(() => h.close());

describe('DELETE /v1/volumes/{volume_id}', () => {
  it('409 volume_in_use while a stopped or running rental has it; once the rental is deleted, deleted and charged up to now', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const volume = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 300 } }),
      201,
    );
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
    const path = `/v1/volumes/${volume.volume_id}`;
    expectNativeError(await call(h.baseUrl, 'DELETE', path, { key: renter.apiKey }), 409, 'volume_in_use');
    expectNativeOk(await call(h.baseUrl, 'POST', `/v1/instances/${rental.task_id}/stop`, { key: renter.apiKey }));
    expectNativeError(await call(h.baseUrl, 'DELETE', path, { key: renter.apiKey }), 409, 'volume_in_use');
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }));
    clock.now += 24 * 3600_000; // a day: 300 GB × $0.10 / 30 = $1
    const deleted = expectNativeOk(await call(h.baseUrl, 'DELETE', path, { key: renter.apiKey }));
    expect(deleted).toMatchObject({
      status: 'deleted',
      machine_id: provider.machineId,
      charged_usd: 1,
      deleted_at: expect.any(Number),
    });
    clock.now += 24 * 3600_000; // nothing accrues once deleted
    expect(expectNativeOk(await call(h.baseUrl, 'DELETE', path, { key: renter.apiKey }))).toMatchObject({
      status: 'deleted',
      charged_usd: 1,
    });
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(99));
    // The provider holds the disk: their share of the storage, less the platform's 15 %.
    expect((await h.deps.ledger.getBalance(provider.accountId)).availableMicros).toBe(usdToMicros(0.85));
    // A deleted volume is never attached again.
    const again = await call(h.baseUrl, 'POST', '/v1/instances', {
      key: renter.apiKey,
      body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', volume_id: volume.volume_id },
    });
    expectNativeError(again, 404, 'volume_not_found');
  });

  it('404 volume_not_found for another account’s volume', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 10 });
    const volume = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: owner.apiKey, body: { size_gb: 10 } }),
      201,
    );
    expectNativeError(
      await call(h.baseUrl, 'DELETE', `/v1/volumes/${volume.volume_id}`, { key: (await h.newAccount()).apiKey }),
      404,
      'volume_not_found',
    );
  });
});

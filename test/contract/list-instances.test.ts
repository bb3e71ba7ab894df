/** GET /v1/instances: the caller's rentals, newest first, paged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';
import { sleep } from '../setup/time.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/instances', () => {
  it('lists the caller’s rentals newest first, deleted ones too, and no one else’s', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const rental = expectNativeOk(
        await call(h.baseUrl, 'POST', '/v1/instances', {
          key: renter.apiKey,
          body: { offer_id: provider.machineId, docker_image: `img:${i}`, pricing_type: 'hour' },
        }),
        201,
      );
      ids.push(rental.task_id);
      await sleep(5);
    }
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${ids[0]}`, { key: renter.apiKey }));
    const all = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/instances', { key: renter.apiKey }));
    expect(all.instances.map((i: { task_id: string }) => i.task_id)).toEqual([...ids].reverse());
    expect(all.instances[2].status).toBe('terminated');
    const page = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/instances?limit=1&offset=1', { key: renter.apiKey }));
    expect(page.instances.map((i: { task_id: string }) => i.task_id)).toEqual([ids[1]]);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/instances', { key: provider.apiKey })).instances).toEqual(
      [],
    );
    expectNativeError(
      await call(h.baseUrl, 'GET', '/v1/instances?limit=0', { key: renter.apiKey }),
      400,
      'invalid_request',
    );
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/instances'), 401, 'authentication_required');
  });
});

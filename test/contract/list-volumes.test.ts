/** GET /v1/volumes: the caller's volumes, newest first, deleted ones included, paged. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

const clock = { now: Date.now() };
let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, { now: () => clock.now });
});
afterAll(() => h.close());

describe('GET /v1/volumes', () => {
  it('lists only the caller’s volumes, newest first, with limit and offset; a deleted one says so', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const ids: number[] = [];
    for (const name of ['a', 'b', 'c']) {
      clock.now += 1000;
      ids.push(
        expectNativeOk(
          await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 10, name } }),
          201,
        ).volume_id,
      );
    }
    await h
      .newAccount(undefined, { balanceUsd: 10 })
      .then((other) => call(h.baseUrl, 'POST', '/v1/volumes', { key: other.apiKey, body: { size_gb: 10 } }));
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/volumes/${ids[0]}`, { key: renter.apiKey }));
    const all = expectNativeOk(await call(h.baseUrl, 'GET', '/v1/volumes', { key: renter.apiKey })).volumes;
    expect(all.map((v: { volume_id: number }) => v.volume_id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(all.map((v: { status: string }) => v.status)).toEqual(['active', 'active', 'deleted']);
    const page = expectNativeOk(
      await call(h.baseUrl, 'GET', '/v1/volumes?limit=1&offset=1', { key: renter.apiKey }),
    ).volumes;
    expect(page.map((v: { name: string }) => v.name)).toEqual(['b']);
  });

  it('400 for a limit out of range', async () => {
    const renter = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'GET', '/v1/volumes?limit=0', { key: renter.apiKey }),
      400,
      'invalid_request',
    );
  });
});

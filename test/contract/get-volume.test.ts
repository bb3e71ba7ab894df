/** GET /v1/volumes/{volume_id}: one of the caller's volumes, charged at its price per GB-month up to `settled_until`. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';

const clock = { now: Date.now() };
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ VOLUME_USD_PER_GB_MONTH: '0.1' }, { now: () => clock.now });
});
afterAll(() => h.close());

describe('GET /v1/volumes/{volume_id}', () => {
  it('settles the volume up to now on a read once a minute of it is unsettled: per millisecond, never twice', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const created = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 100 } }),
      201,
    );
    clock.now += 3 * 24 * 3600_000; // 3 days of 30: $10 × 3 / 30 = $1
    const read = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/volumes/${created.volume_id}`, { key: renter.apiKey }),
    );
    expect(read).toMatchObject({
      volume_id: created.volume_id,
      charged_usd: 1,
      settled_until: created.created_at + 3 * 24 * 3600,
    });
    expectNativeOk(await call(h.baseUrl, 'GET', `/v1/volumes/${created.volume_id}`, { key: renter.apiKey }));
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(9));
    clock.now += 36_000; // less than a minute unsettled: the read settles nothing and says how far it was charged
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/volumes/${created.volume_id}`, { key: renter.apiKey })),
    ).toMatchObject({ charged_usd: 1, settled_until: read.settled_until });
    clock.now += 24_000; // 100 GB × $0.10 for 60 s of a 30-day month: 231 micro-dollars (rounded down)
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/volumes/${created.volume_id}`, { key: renter.apiKey }))
        .charged_usd,
    ).toBe(1.000231);
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(10) - 1_000_231n);
  });

  it('404 volume_not_found for another account’s or an unknown volume; 400 for an id that is not a positive integer', async () => {
    const owner = await h.newAccount(undefined, { balanceUsd: 10 });
    const created = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: owner.apiKey, body: { size_gb: 10 } }),
      201,
    );
    const other = await h.newAccount();
    expectNativeError(
      await call(h.baseUrl, 'GET', `/v1/volumes/${created.volume_id}`, { key: other.apiKey }),
      404,
      'volume_not_found',
    );
    expectNativeError(
      await call(h.baseUrl, 'GET', '/v1/volumes/99999999', { key: owner.apiKey }),
      404,
      'volume_not_found',
    );
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/volumes/abc', { key: owner.apiKey }), 400, 'invalid_request');
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/volumes/0', { key: owner.apiKey }), 400, 'invalid_request');
  });
});

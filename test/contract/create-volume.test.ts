/** POST /v1/volumes: a persistent volume on no machine yet, its first day needed in the balance (SPEC 1.8). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { expectIdempotencyContract } from '../setup/idempotency.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ VOLUME_USD_PER_GB_MONTH: '0.2' });
});
afterAll(() => h.close());

describe('POST /v1/volumes', () => {
  it('201 with the volume: on no machine, priced per GB-month as configured, nothing charged yet', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 5 });
    const volume = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 720, name: 'datasets' } }),
      201,
    );
    expect(volume).toEqual({
      volume_id: expect.any(Number),
      name: 'datasets',
      size_gb: 720,
      machine_id: null,
      status: 'active',
      price_per_gb_month_usd: 0.2,
      cost_per_hour_usd: 0.2, // 720 GB × $0.20 / 720 hours
      charged_usd: 0,
      settled_until: volume.created_at,
      created_at: expect.any(Number),
      deleted_at: null,
    });
    expect(
      expectNativeOk(await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 1 } }), 201)
        .name,
    ).toBe('volume');
    expect((await h.deps.ledger.getBalance(renter.accountId)).availableMicros).toBe(usdToMicros(5));
  });

  it('402 insufficient_balance when the balance cannot pay a day of it and of the account’s other volumes; nothing created', async () => {
    const poor = await h.newAccount(undefined, { balanceUsd: 4.7 });
    // 720 GB for a day: $4.80.
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: poor.apiKey, body: { size_gb: 720 } }),
      402,
      'insufficient_balance',
    );
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/volumes', { key: poor.apiKey })).volumes).toEqual([]);
    // A day of every volume of the account: $4.7 pays a day of 700 GB ($4.67), not a day of 700 GB and 10 GB more.
    expectNativeOk(await call(h.baseUrl, 'POST', '/v1/volumes', { key: poor.apiKey, body: { size_gb: 700 } }), 201);
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: poor.apiKey, body: { size_gb: 10 } }),
      402,
      'insufficient_balance',
    );
  });

  it('400 naming size_gb when it is missing, not an integer or out of 1..8192, and for unknown fields', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 5 });
    for (const body of [{}, { size_gb: 0 }, { size_gb: 8193 }, { size_gb: 1.5 }, { size_gb: '10' }]) {
      const response = await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body });
      expectNativeError(response, 400, 'invalid_request');
      expect(JSON.stringify(response.body.data)).toContain('size_gb');
    }
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 10, region: 'eu' } }),
      400,
      'invalid_request',
    );
  });

  it('an Idempotency-Key replays the first volume instead of creating two; another body with it is 409', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 5 });
    const send = (body: unknown, key: string) =>
      call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body, headers: { 'Idempotency-Key': key } });
    await expectIdempotencyContract(send, { first: { size_gb: 10 }, other: { size_gb: 11 } }, 'native', 201);
    expect(expectNativeOk(await call(h.baseUrl, 'GET', '/v1/volumes', { key: renter.apiKey })).volumes).toHaveLength(1);
  });

  it('401 without a key', async () => {
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/volumes', { body: { size_gb: 10 } }),
      401,
      'authentication_required',
    );
  });
});

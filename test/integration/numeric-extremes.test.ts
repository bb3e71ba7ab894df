/**
 * Extreme numbers are client mistakes, never a 500 (issue rule "client mistakes are 4xx";
 * test/unit/contract-numeric-bounds.test.ts holds every bound to its column): one past each bound answers 400, and
 * the bound itself is served (or refused by its own rule), on SQLite and on PostgreSQL + Redis. Before the bounds,
 * `available_until: 1e16` and a volume id past a PostgreSQL integer answered 500 on PostgreSQL.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { HARNESS_DATABASES } from '../setup/databases.js';
import { expectCompatError, expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness } from '../setup/harness.js';
import { MACHINE, newProvider } from '../setup/market.js';
import { harnessOn } from '../setup/suite-harness.js';

/** 9999-12-31T23:59:59Z: the latest `available_until` (unix seconds). */
const LAST_SECOND = 253_402_300_799;
const INT4_MAX = 2_147_483_647;

describe.each(HARNESS_DATABASES)('extreme numbers on $name', (database) => {
  const harness = harnessOn(database, database.name === 'PostgreSQL' ? { REDIS_URL: 'redis://127.0.0.1:6379' } : {});
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = harness();
    key = (await h.newAccount(undefined, { balanceUsd: 5 })).apiKey;
  });
  const send = (method: string, path: string, body?: unknown, as = key) =>
    call(h.baseUrl, method, path, { key: as, ...(body === undefined ? {} : { body }) });

  it('available_until: 1e16 is refused on registration and on a listing change; the last second of 9999 is kept', async () => {
    const provider = await h.newAccount();
    expectNativeError(
      await send('POST', '/v1/provider/machines', { ...MACHINE, available_until: 1e16 }, provider.apiKey),
      400,
      'invalid_request',
    );
    const machine = expectNativeOk(
      await send('POST', '/v1/provider/machines', { ...MACHINE, available_until: LAST_SECOND }, provider.apiKey),
      201,
    );
    const path = `/v1/provider/machines/${machine.machine_id}`;
    expectNativeError(await send('PATCH', path, { available_until: 1e16 }, provider.apiKey), 400, 'invalid_request');
    expectNativeError(
      await send('PATCH', path, { available_until: LAST_SECOND + 1 }, provider.apiKey),
      400,
      'invalid_request',
    );
    expectNativeOk(await send('PATCH', path, { available_until: LAST_SECOND }, provider.apiKey));
    const offers = expectNativeOk(await send('GET', '/v1/marketplace/offers'));
    expect(JSON.stringify(offers)).toContain(String(LAST_SECOND));
  });

  it('volume ids past a PostgreSQL integer are refused; the largest is simply not found', async () => {
    expectNativeError(await send('GET', `/v1/volumes/${INT4_MAX + 1}`), 400, 'invalid_request');
    expectNativeError(await send('GET', `/v1/volumes/${INT4_MAX}`), 404, 'volume_not_found');
    const provider = await newProvider(h);
    const rent = (volumeId: number) =>
      send('POST', '/v1/instances', {
        offer_id: provider.machineId,
        docker_image: 'ubuntu:24.04',
        volume_id: volumeId,
      });
    expectNativeError(await rent(INT4_MAX + 1), 400, 'invalid_request');
    const missing = await rent(INT4_MAX);
    expect(missing.status, missing.text).toBeGreaterThanOrEqual(400);
    expect(missing.status).toBeLessThan(500);
  });

  it('price caps: past a million dollars an hour is refused, a million is a filter like any other', async () => {
    expectNativeError(await send('GET', '/v1/marketplace/offers?max_price_per_hour=1e300'), 400, 'invalid_request');
    expectNativeOk(await send('GET', '/v1/marketplace/offers?max_price_per_hour=1000000'));
    const estimate = (price: number) =>
      send('POST', '/v1/burst/orders/estimate', {
        primary_gpu: 'RTX_4090',
        gpu_count: 1,
        primary_max_price: price,
        pricing_type: 'hour',
      });
    expectNativeError(await estimate(1e300), 400, 'invalid_request');
    const bounded = await estimate(1_000_000);
    expect(bounded.status, bounded.text).toBeLessThan(500);
  });

  it('token counts and link expiries: past the bound is a 400 with the field’s own code', async () => {
    const chat = await send('POST', '/v1/compat/chat/completions', {
      model: 'gpt-5-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: INT4_MAX + 1,
    });
    expectCompatError(chat, 400, 'invalid_max_tokens');
    expectCompatError(
      await send('POST', '/v1/compat/chat/completions', {
        model: 'gpt-5-mini',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: INT4_MAX,
      }),
      400,
      'invalid_max_tokens',
    );
    const embeddings = await send('POST', '/v1/compat/embeddings', {
      model: 'text-embedding-3-small',
      input: 'hi',
      dimensions: 1e12,
    });
    expect(embeddings.status, embeddings.text).toBe(400);
    const link = await fetch(`${h.baseUrl}/v1/files/x.png?expires=1e20&signature=abc`, {
      headers: { 'user-agent': 'integration-tests/1' },
    });
    expect(link.status).toBe(400);
  });
});

/**
 * POST /v1/instances: rent GPUs of an offer (SPEC 4.5). Echoes the plan, unit price and GPU; a term plan holds its
 * price, a metered one needs an hour of runtime; 410 when the GPUs were taken, nothing charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/domain/billing/money.js';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { heartbeat, newProvider } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const rent = (key: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  call(h.baseUrl, 'POST', '/v1/instances', {
    key,
    body: { docker_image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime', ...body },
    ...(headers === undefined ? {} : { headers }),
  });

describe('POST /v1/instances', () => {
  it('201 on the week plan by default: the week’s discounted price held, the plan, unit price and GPU echoed, pending', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 200 });
    const rental = expectNativeOk(
      await rent(renter.apiKey, { offer_id: provider.machineId, gpu_count: 2, disk_gb: 100 }),
      201,
    );
    expect(rental).toEqual({
      task_id: expect.stringMatching(/^inst_/),
      offer_id: provider.machineId,
      gpu_name: expect.stringMatching(/^g_/),
      gpu_count: 2,
      gpu_indexes: [0, 1],
      docker_image: 'pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime',
      disk_gb: 100,
      pricing_type: 'week',
      unit_price_usd: 80.64,
      term_seconds: 604_800,
      desired_status: 'running',
      status: 'pending',
      status_reason: null,
      running_seconds: 0,
      charged_usd: 0,
      ssh_host: '127.0.0.1',
      ssh_port: expect.any(Number),
      volume_id: null,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    const balance = await h.deps.ledger.getBalance(renter.accountId);
    expect(balance.heldMicros).toBe(usdToMicros(161.28));
    expect(balance.availableMicros).toBe(usdToMicros(200 - 161.28));
  });

  it('a metered plan takes nothing up front but needs an hour of runtime: 402 insufficient_balance otherwise', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const poor = await h.newAccount(undefined, { balanceUsd: 1.19 });
    expectNativeError(
      await rent(poor.apiKey, { offer_id: provider.machineId, pricing_type: 'minute', gpu_count: 2 }),
      402,
      'insufficient_balance',
    );
    expectNativeError(
      await rent(poor.apiKey, { offer_id: provider.machineId, gpu_count: 1 }),
      402,
      'insufficient_balance',
    );
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(4);
    const rental = expectNativeOk(
      await rent(poor.apiKey, { offer_id: provider.machineId, pricing_type: 'minute', gpu_count: 1 }),
      201,
    );
    expect(rental).toMatchObject({ pricing_type: 'minute', unit_price_usd: 0.01, term_seconds: null });
    expect((await h.deps.ledger.getBalance(poor.accountId)).availableMicros).toBe(usdToMicros(1.19));
  });

  it('402 on the default week plan says in its hint which plan the balance covers; the offer shows it too', async () => {
    const gpu = newId('g');
    const provider = await newProvider(h, { gpu_name: gpu, price_per_gpu_hour_usd: 0.5 });
    const newcomer = await h.newAccount(undefined, { balanceUsd: 50 });
    const refused = await rent(newcomer.apiKey, { offer_id: provider.machineId, gpu_count: 1 });
    expectNativeError(refused, 402, 'insufficient_balance');
    expect(refused.body.data.meta.hint).toBe(
      'The balance has $50 available: it covers pricing_type "day" on this offer ($10.8 at start; plans that fit: minute, hour, day), not "week" ($67.2). Choose one of them, or top up.',
    );
    const offer = expectNativeOk(
      await call(h.baseUrl, 'GET', `/v1/marketplace/offers?gpu_model=${gpu}`, { key: newcomer.apiKey }),
    ).offers[0];
    expect(
      Object.fromEntries(
        Object.entries(offer.prices).map(([plan, p]) => [plan, (p as { fits_balance: boolean }).fits_balance]),
      ),
    ).toEqual({ minute: true, hour: true, day: true, week: false, month: false });
    expectNativeOk(
      await rent(newcomer.apiKey, { offer_id: provider.machineId, gpu_count: 1, pricing_type: 'day' }),
      201,
    );

    const broke = await h.newAccount(undefined, { balanceUsd: 0.1 });
    const none = await rent(broke.apiKey, { offer_id: provider.machineId, gpu_count: 1, pricing_type: 'hour' });
    expectNativeError(none, 402, 'insufficient_balance');
    expect(none.body.data.meta.hint).toBe(
      'The balance has $0.1 available: no plan of this offer fits (an hour of runtime needs $0.5). Top up the account.',
    );
  });

  it('410 rental_unavailable when the GPUs were rented by someone else; nothing held', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), gpu_count: 1 });
    const first = await h.newAccount(undefined, { balanceUsd: 200 });
    const second = await h.newAccount(undefined, { balanceUsd: 200 });
    expectNativeOk(await rent(first.apiKey, { offer_id: provider.machineId }), 201);
    expectNativeError(await rent(second.apiKey, { offer_id: provider.machineId }), 410, 'rental_unavailable');
    expect((await h.deps.ledger.getBalance(second.accountId)).availableMicros).toBe(usdToMicros(200));
  });

  it('404 offer_not_found for an unknown, unlisted or silent offer; 400 naming gpu_count or disk_gb beyond the offer, or the caller’s own offer', async () => {
    const renter = await h.newAccount(undefined, { balanceUsd: 500 });
    expectNativeError(await rent(renter.apiKey, { offer_id: newId('mch') }), 404, 'offer_not_found');
    const hidden = await newProvider(h, { gpu_name: newId('g'), listed: false });
    expectNativeError(await rent(renter.apiKey, { offer_id: hidden.machineId }), 404, 'offer_not_found');
    const provider = await newProvider(h, { gpu_name: newId('g'), min_gpus: 2, disk_gb: 200 });
    for (const [body, field] of [
      [{ gpu_count: 1 }, 'gpu_count'],
      [{ gpu_count: 5 }, 'gpu_count'],
      [{ disk_gb: 300 }, 'disk_gb'],
      [{ disk_gb: 10 }, 'disk_gb'],
      [{ pricing_type: 'year' }, 'pricing_type'],
      [{ docker_image: '' }, 'docker_image'],
    ] as const) {
      const response = await rent(renter.apiKey, { offer_id: provider.machineId, ...body });
      expectNativeError(response, 400, 'invalid_request');
      expect(JSON.stringify(response.body.data)).toContain(field);
    }
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(4);
    // A provider renting its own machine would pay itself: refused, naming the offer.
    await h.topUp(provider.accountId, 500);
    const own = await rent(provider.apiKey, { offer_id: provider.machineId, gpu_count: 2 });
    expectNativeError(own, 400, 'invalid_request');
    expect(JSON.stringify(own.body.data)).toContain('offer_id');
    expectNativeError(
      await call(h.baseUrl, 'POST', '/v1/instances', { body: { offer_id: provider.machineId, docker_image: 'x' } }),
      401,
      'authentication_required',
    );
  });

  it('attaches a volume: the first rental pins it to its machine, its agent is told to mount it; another machine is 400 naming volume_id', async () => {
    const [here, there] = [
      await newProvider(h, { gpu_name: newId('g') }),
      await newProvider(h, { gpu_name: newId('g') }),
    ];
    const renter = await h.newAccount(undefined, { balanceUsd: 500 });
    const volume = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 50 } }),
      201,
    );
    const rental = expectNativeOk(
      await rent(renter.apiKey, { offer_id: here.machineId, pricing_type: 'hour', volume_id: volume.volume_id }),
      201,
    );
    expect(rental.volume_id).toBe(volume.volume_id);
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/volumes/${volume.volume_id}`, { key: renter.apiKey }))
        .machine_id,
    ).toBe(here.machineId);
    const [assignment] = await heartbeat(h, here);
    expect(assignment).toMatchObject({ instance_id: rental.task_id, volume: `cgw-vol-${volume.volume_id}` });
    // A second rental on the same machine shares it.
    expectNativeOk(
      await rent(renter.apiKey, { offer_id: here.machineId, pricing_type: 'hour', volume_id: volume.volume_id }),
      201,
    );
    const elsewhere = await rent(renter.apiKey, {
      offer_id: there.machineId,
      pricing_type: 'hour',
      volume_id: volume.volume_id,
    });
    expectNativeError(elsewhere, 400, 'invalid_request');
    expect(JSON.stringify(elsewhere.body.data)).toContain('volume_id');
    expect(await h.deps.market.store.freeGpus(there.machineId)).toBe(4);
    // Somebody else's volume, or none such: 404, nothing taken or held.
    const stranger = await h.newAccount(undefined, { balanceUsd: 500 });
    expectNativeError(
      await rent(stranger.apiKey, { offer_id: there.machineId, volume_id: volume.volume_id }),
      404,
      'volume_not_found',
    );
    expectNativeError(
      await rent(stranger.apiKey, { offer_id: there.machineId, volume_id: 99_999_999 }),
      404,
      'volume_not_found',
    );
    expect((await h.deps.ledger.getBalance(stranger.accountId)).heldMicros).toBe(0n);
  });

  it('an Idempotency-Key replays the first rental instead of renting twice; another body with it is 409', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 200 });
    const key = { 'idempotency-key': newId('idem') };
    const first = expectNativeOk(
      await rent(renter.apiKey, { offer_id: provider.machineId, pricing_type: 'day' }, key),
      201,
    );
    const replay = await rent(renter.apiKey, { offer_id: provider.machineId, pricing_type: 'day' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(expectNativeOk(replay, 201).task_id).toBe(first.task_id);
    expect(await h.deps.market.store.freeGpus(provider.machineId)).toBe(3);
    expectNativeError(
      await rent(renter.apiKey, { offer_id: provider.machineId, pricing_type: 'week' }, key),
      409,
      'idempotency_conflict',
    );
  });
});

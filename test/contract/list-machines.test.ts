/** GET /v1/provider/machines: the caller's machines only, oldest first, with whether their agent is online. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { MACHINE, newProvider } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /v1/provider/machines', () => {
  it('lists the caller’s machines and no one else’s; a silent one is offline', async () => {
    const provider = await newProvider(h);
    const second = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/provider/machines', {
        key: provider.apiKey,
        body: { ...MACHINE, name: 'rig-2' },
      }),
      201,
    );
    await newProvider(h);
    await h.deps.market.store.updateMachine(second.machine_id, {
      lastHeartbeatMs: Date.now() - h.deps.config.MACHINE_OFFLINE_MS - 1,
    });
    const { machines } = expectNativeOk(
      await call(h.baseUrl, 'GET', '/v1/provider/machines', { key: provider.apiKey }),
    );
    expect(machines.map((m: { machine_id: string; online: boolean }) => [m.machine_id, m.online])).toEqual([
      [provider.machineId, true],
      [second.machine_id, false],
    ]);
    const stranger = await h.newAccount();
    expect(
      expectNativeOk(await call(h.baseUrl, 'GET', '/v1/provider/machines', { key: stranger.apiKey })).machines,
    ).toEqual([]);
    expectNativeError(await call(h.baseUrl, 'GET', '/v1/provider/machines'), 401, 'authentication_required');
  });
});

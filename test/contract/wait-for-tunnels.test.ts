/** POST /v1/provider/machines/{machine_id}/tunnels: the agent's long poll for SSH tunnels to open. */

import { once } from 'node:events';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider, runningRental } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('POST /v1/provider/machines/{machine_id}/tunnels', () => {
  it('answers a client waiting on a running rental’s SSH port with its token, once, and where to dial back', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const rental = await runningRental(h, renter.apiKey, provider, { pricing_type: 'hour' });
    const waiting = call(h.baseUrl, 'POST', `/v1/provider/machines/${provider.machineId}/tunnels?wait_seconds=10`, {
      key: provider.apiKey,
    });
    const client = connect({ host: '127.0.0.1', port: rental.ssh_port });
    await once(client, 'connect');
    const answer = expectNativeOk(await waiting);
    expect(answer).toEqual({
      connections: [
        {
          token: expect.any(String),
          instance_id: rental.task_id,
          tunnel: { host: '127.0.0.1', port: h.deps.market.sshProxy.settings.tunnelPort },
        },
      ],
    });
    expect(answer.connections[0].tunnel.port).toBeGreaterThan(0);
    const again = expectNativeOk(
      await call(h.baseUrl, 'POST', `/v1/provider/machines/${provider.machineId}/tunnels?wait_seconds=0`, {
        key: provider.apiKey,
      }),
    );
    expect(again.connections).toEqual([]);
    client.destroy();
  });

  it('400 for a wait beyond 60 seconds; 404 machine_not_found for another provider’s machine', async () => {
    const provider = await newProvider(h);
    const path = `/v1/provider/machines/${provider.machineId}/tunnels`;
    expectNativeError(
      await call(h.baseUrl, 'POST', `${path}?wait_seconds=61`, { key: provider.apiKey }),
      400,
      'invalid_request',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', `${path}?wait_seconds=0`, { key: (await h.newAccount()).apiKey }),
      404,
      'machine_not_found',
    );
  });
});

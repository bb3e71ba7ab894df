/** POST /v1/provider/machines/{machine_id}/heartbeat: the agent reports its containers and learns what to run. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { heartbeat, newProvider, sshPublicKey } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('POST /v1/provider/machines/{machine_id}/heartbeat', () => {
  it('assigns new rentals with their renter’s SSH keys; a container reported running starts billing, one that failed stops its rental with reason error', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 20 });
    const rent = async () =>
      expectNativeOk(
        await call(h.baseUrl, 'POST', '/v1/instances', {
          key: renter.apiKey,
          body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', pricing_type: 'hour', disk_gb: 60 },
        }),
        201,
      );
    const key = sshPublicKey();
    expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/settings/ssh-keys', { key: renter.apiKey, body: { public_key: key } }),
      201,
    );
    const [a, b] = [await rent(), await rent()];
    expect(await heartbeat(h, provider)).toEqual([
      {
        instance_id: a.task_id,
        desired_status: 'running',
        docker_image: 'ubuntu:24.04',
        disk_gb: 60,
        gpu_indexes: [0],
        ssh_public_keys: [key],
        volume: null,
      },
      {
        instance_id: b.task_id,
        desired_status: 'running',
        docker_image: 'ubuntu:24.04',
        disk_gb: 60,
        gpu_indexes: [1],
        ssh_public_keys: [key],
        volume: null,
      },
    ]);
    await heartbeat(h, provider, [
      { instance_id: a.task_id, state: 'running' },
      { instance_id: b.task_id, state: 'failed' },
    ]);
    const read = async (id: string) =>
      expectNativeOk(await call(h.baseUrl, 'GET', `/v1/instances/${id}`, { key: renter.apiKey }));
    expect(await read(a.task_id)).toMatchObject({ status: 'running', status_reason: null });
    expect(await read(b.task_id)).toMatchObject({
      status: 'stopped',
      desired_status: 'stopped',
      status_reason: 'error',
      gpu_indexes: [],
    });
  });

  it('lists the Docker volumes of the persistent volumes on the machine, until their renter deletes them', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 20 });
    const volume = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 10 } }),
      201,
    );
    const path = `/v1/provider/machines/${provider.machineId}/heartbeat`;
    const volumes = async () =>
      expectNativeOk(await call(h.baseUrl, 'POST', path, { key: provider.apiKey, body: {} })).volumes;
    expect(await volumes()).toEqual([]);
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
    expect(await volumes()).toEqual([`cgw-vol-${volume.volume_id}`]);
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }));
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/volumes/${volume.volume_id}`, { key: renter.apiKey }));
    expect(await volumes()).toEqual([]);
  });

  it('400 for a container state it does not know; 404 machine_not_found for another provider’s machine', async () => {
    const provider = await newProvider(h);
    const path = `/v1/provider/machines/${provider.machineId}/heartbeat`;
    expectNativeError(
      await call(h.baseUrl, 'POST', path, {
        key: provider.apiKey,
        body: { containers: [{ instance_id: 'x', state: 'paused' }] },
      }),
      400,
      'invalid_request',
    );
    expectNativeError(
      await call(h.baseUrl, 'POST', path, { key: (await h.newAccount()).apiKey, body: {} }),
      404,
      'machine_not_found',
    );
  });
});

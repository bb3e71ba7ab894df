/** POST /v1/instances/{id}/ssh-proxy/ensure: the rental's SSH proxy port, the same on every call (SPEC 4.5). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../src/lib/ids.js';
import { expectNativeError, expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { newProvider } from '../setup/market.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ SSH_PROXY_PORTS: '19000-19001', SSH_PROXY_HOST: 'ssh.example.test' });
});
afterAll(() => h.close());

const rent = async (key: string, offerId: string) =>
  expectNativeOk(
    await call(h.baseUrl, 'POST', '/v1/instances', {
      key,
      body: { offer_id: offerId, docker_image: 'ubuntu:24.04', pricing_type: 'hour' },
    }),
    201,
  );
const ensure = (key: string, id: string) => call(h.baseUrl, 'POST', `/v1/instances/${id}/ssh-proxy/ensure`, { key });

describe('POST /v1/instances/{id}/ssh-proxy/ensure', () => {
  it('a rental gets its port when placed; ensure answers it again, allocates one for a rental that lost it, and 503 when the range is used up', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g'), gpu_count: 4 });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const first = await rent(renter.apiKey, provider.machineId);
    expect(first).toMatchObject({ ssh_host: 'ssh.example.test', ssh_port: 19000 });
    expect(expectNativeOk(await ensure(renter.apiKey, first.task_id))).toMatchObject({
      ssh_host: 'ssh.example.test',
      ssh_port: 19000,
    });
    const second = await rent(renter.apiKey, provider.machineId);
    expect(second.ssh_port).toBe(19001);
    // The range is full: a third rental is placed without a port, and ensure says so until one is free.
    const third = await rent(renter.apiKey, provider.machineId);
    expect(third).toMatchObject({ ssh_host: null, ssh_port: null });
    expectNativeError(await ensure(renter.apiKey, third.task_id), 503, 'provider_unavailable');
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${first.task_id}`, { key: renter.apiKey }));
    await h.deps.market.sshProxy.sync();
    expect(expectNativeOk(await ensure(renter.apiKey, third.task_id))).toMatchObject({
      ssh_host: 'ssh.example.test',
      ssh_port: 19000,
    });
  });

  it('404 instance_not_found for another account’s rental; 409 instance_terminated once deleted', async () => {
    const provider = await newProvider(h, { gpu_name: newId('g') });
    const renter = await h.newAccount(undefined, { balanceUsd: 100 });
    const rental = await rent(renter.apiKey, provider.machineId);
    expectNativeError(await ensure(provider.apiKey, rental.task_id), 404, 'instance_not_found');
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }));
    expectNativeError(await ensure(renter.apiKey, rental.task_id), 409, 'instance_terminated');
  });
});

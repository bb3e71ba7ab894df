/**
 * Issue 10 acceptance, end to end: the agent process (`src/agent/cli.ts`) registers its machine from an inventory
 * file against a fake Docker daemon, receives a rental, runs its container and reports it running (billing
 * starts), and a TCP client connected to the rental's SSH proxy port talks to the server inside the "container"
 * through the agent's tunnel. Stopping the rental stops the container; deleting it removes it. The rental's
 * persistent volume is mounted at /workspace, and removed from Docker once its renter deletes it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDocker, startFakeDocker } from '../fixtures/fake-docker.js';
import { expectNativeOk } from '../setup/envelopes.js';
import { call, type Harness, startHarness } from '../setup/harness.js';
import { sshPublicKey } from '../setup/market.js';
import { eventually } from '../setup/polling.js';

let h: Harness;
let docker: FakeDocker;
let agent: ChildProcess | undefined;
let dir: string;

beforeAll(async () => {
  h = await startHarness();
  docker = await startFakeDocker();
  dir = mkdtempSync(join(tmpdir(), 'cgw-agent-'));
});
afterAll(async () => {
  agent?.kill('SIGTERM');
  if (agent !== undefined && agent.exitCode === null) await once(agent, 'exit');
  await h.close();
  await docker.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Connects to host:port, sends `line`, and answers everything received until `until` shows up. */
async function converse(port: number, line: string, until: string): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
  await once(socket, 'connect');
  socket.write(line);
  await eventually(async () => (received.includes(until) ? true : undefined), 10_000, `"${until}" through the tunnel`);
  socket.destroy();
  return received;
}

describe('the agent against a fake Docker daemon', () => {
  it('registers, runs the rental’s container with its renter’s SSH key, reports it running, and carries SSH through its tunnel', async () => {
    const provider = await h.newAccount();
    const inventory = join(dir, 'inventory.json');
    writeFileSync(
      inventory,
      JSON.stringify({
        name: 'e2e-rig',
        gpu_name: 'RTX_4090',
        gpu_count: 2,
        vram_gb: 24,
        cpu_cores: 16,
        ram_gb: 64,
        disk_gb: 500,
        location: 'NL',
      }),
    );
    agent = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/agent/cli.ts',
        '--gateway',
        h.baseUrl,
        '--inventory',
        inventory,
        '--price-per-gpu-hour',
        '0.8',
        '--docker-host',
        docker.host,
        '--state',
        join(dir, 'state.json'),
        '--heartbeat-seconds',
        '0.2',
      ],
      { env: { ...process.env, CGW_API_KEY: provider.apiKey }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const machines = await eventually(
      async () => {
        const listed = expectNativeOk(
          await call(h.baseUrl, 'GET', '/v1/provider/machines', { key: provider.apiKey }),
        ).machines;
        return listed.length > 0 ? listed : undefined;
      },
      20_000,
      'the machine registered',
    );
    expect(machines[0]).toMatchObject({
      name: 'e2e-rig',
      gpu_name: 'RTX_4090',
      gpu_count: 2,
      location: 'NL',
      price_per_gpu_hour_usd: 0.8,
      online: true,
    });

    const renter = await h.newAccount(undefined, { balanceUsd: 10 });
    const key = sshPublicKey();
    expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/settings/ssh-keys', { key: renter.apiKey, body: { public_key: key } }),
      201,
    );
    const volume = expectNativeOk(
      await call(h.baseUrl, 'POST', '/v1/volumes', { key: renter.apiKey, body: { size_gb: 20 } }),
      201,
    );
    const dockerVolume = `cgw-vol-${volume.volume_id}`;
    const body = {
      offer_id: machines[0].machine_id,
      docker_image: 'ubuntu:24.04',
      pricing_type: 'minute',
      volume_id: volume.volume_id,
    };
    const rental = expectNativeOk(await call(h.baseUrl, 'POST', '/v1/instances', { key: renter.apiKey, body }), 201);
    expect(rental.ssh_port).toEqual(expect.any(Number));
    const read = () =>
      call(h.baseUrl, 'GET', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }).then((r) => expectNativeOk(r));
    await eventually(
      async () => ((await read()).status === 'running' ? true : undefined),
      20_000,
      'the rental running',
    );
    const container = [...docker.containers.values()].find((c) => c.labels['cgw.instance'] === rental.task_id)!;
    expect(container).toMatchObject({ image: 'ubuntu:24.04', state: 'running' });
    expect(container.env).toContain(`PUBLIC_KEY=${key}`);
    expect(container.hostConfig['Mounts']).toEqual([{ Type: 'volume', Source: dockerVolume, Target: '/workspace' }]);
    expect(docker.volumes.get(dockerVolume)).toEqual({ 'cgw.volume': '1' });

    const answer = await converse(rental.ssh_port, 'hello from the renter\n', 'hello from the renter');
    expect(answer).toContain(`SSH-2.0-fake-container-${container.id}`);

    expectNativeOk(await call(h.baseUrl, 'POST', `/v1/instances/${rental.task_id}/stop`, { key: renter.apiKey }));
    await eventually(
      async () => (docker.containers.get(container.id)?.state === 'exited' ? true : undefined),
      10_000,
      'the container stopped',
    );
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/instances/${rental.task_id}`, { key: renter.apiKey }));
    await eventually(
      async () => (docker.containers.has(container.id) ? undefined : true),
      10_000,
      'the container removed',
    );
    expect(docker.volumes.has(dockerVolume)).toBe(true); // the renter's data outlives the rental
    expectNativeOk(await call(h.baseUrl, 'DELETE', `/v1/volumes/${volume.volume_id}`, { key: renter.apiKey }));
    await eventually(async () => (docker.volumes.has(dockerVolume) ? undefined : true), 10_000, 'the volume removed');
  });
});

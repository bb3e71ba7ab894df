/** A provider's machine and its agent's heartbeats, over HTTP as the agent makes them (contract and integration tests). */
import { generateKeyPairSync } from 'node:crypto';
import { expectNativeOk } from './envelopes.js';
import { call, type Harness } from './harness.js';

export const MACHINE = {
  name: 'rig-1',
  gpu_name: 'RTX_4090',
  gpu_count: 4,
  vram_gb: 24,
  cpu_cores: 32,
  ram_gb: 128,
  disk_gb: 1000,
  location: 'DE',
  price_per_gpu_hour_usd: 0.6,
};

export interface Provider {
  apiKey: string;
  accountId: string;
  machineId: string;
}

/** A new provider account with one machine registered (online: registering counts as a heartbeat). */
export async function newProvider(h: Harness, machine: Record<string, unknown> = {}): Promise<Provider> {
  const provider = await h.newAccount();
  const registered = expectNativeOk(
    await call(h.baseUrl, 'POST', '/v1/provider/machines', { key: provider.apiKey, body: { ...MACHINE, ...machine } }),
    201,
  );
  return { apiKey: provider.apiKey, accountId: provider.accountId, machineId: registered.machine_id };
}

/** The agent's heartbeat with its containers' states; answers its assignments. */
export async function heartbeat(
  h: Harness,
  provider: Provider,
  containers: { instance_id: string; state: string }[] = [],
): Promise<any[]> {
  const answer = expectNativeOk(
    await call(h.baseUrl, 'POST', `/v1/provider/machines/${provider.machineId}/heartbeat`, {
      key: provider.apiKey,
      body: { containers },
    }),
  );
  return answer.assignments;
}

/** Rents an offer and has the agent report its container running: the rental is billed from here on. */
export async function runningRental(
  h: Harness,
  renterKey: string,
  provider: Provider,
  body: Record<string, unknown> = {},
): Promise<any> {
  const rental = expectNativeOk(
    await call(h.baseUrl, 'POST', '/v1/instances', {
      key: renterKey,
      body: { offer_id: provider.machineId, docker_image: 'ubuntu:24.04', ...body },
    }),
    201,
  );
  await heartbeat(h, provider, [{ instance_id: rental.task_id, state: 'running' }]);
  return rental;
}

/** Lets time pass with a rental's container running: the clock moves on and the agent confirms it at the end. */
export async function keepRunning(
  h: Harness,
  clock: { now: number },
  provider: Provider,
  taskId: string,
  ms: number,
): Promise<void> {
  clock.now += ms;
  await heartbeat(h, provider, [{ instance_id: taskId, state: 'running' }]);
}

/** A burst order of `gpu_count` GPUs of the given type (an hour plan unless said), answered as placed. */
export async function placeBurst(h: Harness, renterKey: string, body: Record<string, unknown>): Promise<any> {
  return expectNativeOk(
    await call(h.baseUrl, 'POST', '/v1/burst/orders', {
      key: renterKey,
      body: { docker_image: 'ubuntu:24.04', pricing_type: 'hour', ...body },
    }),
    201,
  );
}

/** A fresh ed25519 public key as an OpenSSH line, built from its SSH wire encoding (string type, string key). */
export function sshPublicKey(comment = 'renter@laptop'): string {
  const raw = Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const field = (b: Buffer) => Buffer.concat([Buffer.from([0, 0, 0, b.length]), b]);
  return `ssh-ed25519 ${Buffer.concat([field(Buffer.from('ssh-ed25519')), field(raw)]).toString('base64')} ${comment}`;
}

/**
 * `cgw offers|rent|instances|ssh|burst|volumes` against a live server with providers' machines registered over
 * HTTP as their agents do: the listing's filters as flags, a rental driven from start to delete, and the SSH
 * command built from the proxy's port.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../setup/harness.js';
import { heartbeat, newProvider, type Provider } from '../setup/market.js';
import { cgw, ERROR_LINE, ensureBuilt, tempHome } from './cgw.js';

let h: Harness;
let home: Awaited<ReturnType<typeof tempHome>>;
let env: Record<string, string>;
let rtx: Provider;
let a100: Provider;
beforeAll(async () => {
  [h, home] = await Promise.all([startHarness(), tempHome(), ensureBuilt()]);
  rtx = await newProvider(h, { location: 'DE', price_per_gpu_hour_usd: 0.6 });
  a100 = await newProvider(h, { gpu_name: 'A100_80GB', vram_gb: 80, location: 'US', price_per_gpu_hour_usd: 1.5 });
  const { apiKey } = await h.newAccount(undefined, { balanceUsd: 500 });
  env = { ...home.env, CGW_API_KEY: apiKey, CGW_BASE_URL: h.baseUrl };
});
afterAll(async () => {
  await h.close();
  await home.cleanup();
});

const json = async (args: string[]) => {
  const result = await cgw([...args, '--json'], { env });
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout);
};

describe('cgw offers', () => {
  it('passes the filters to the listing: gpu model, vram, price, location, sort', async () => {
    const all = await json(['offers', '--sort', '-price']);
    const ids = all.offers.map((o: { offer_id: string }) => o.offer_id);
    expect(ids).toEqual([a100.machineId, rtx.machineId]);
    const byGpu = await json(['offers', '--gpu', 'A100_80GB']);
    expect(byGpu.offers.map((o: { offer_id: string }) => o.offer_id)).toEqual([a100.machineId]);
    const cheap = await cgw(['offers', '--max-price', '1'], { env });
    expect(cheap.stdout).toContain(rtx.machineId);
    expect(cheap.stdout).not.toContain(a100.machineId);
    expect(cheap.stdout).toContain('$0.60');
    const big = await json(['offers', '--min-vram', '48', '--location', 'US', '--location', 'DE']);
    expect(big.offers.map((o: { offer_id: string }) => o.offer_id)).toEqual([a100.machineId]);
    const none = await cgw(['offers', '--location', 'JP'], { env });
    expect(none.stdout).toContain('no offer matches');
    const bad = await cgw(['offers', '--sort', 'cheapest'], { env });
    expect(bad.code).toBe(2);
  });
});

describe('cgw rent and instances', () => {
  it('rents an offer, lists and shows it, prints its ssh command, stops and deletes it', async () => {
    const rented = await json(['rent', rtx.machineId, '--image', 'ubuntu:24.04', '--gpus', '1', '--pricing', 'hour']);
    expect(rented).toMatchObject({ offer_id: rtx.machineId, gpu_count: 1, docker_image: 'ubuntu:24.04' });
    const id: string = rented.task_id;
    await heartbeat(h, rtx, [{ instance_id: id, state: 'running' }]);

    const table = await cgw(['instances'], { env });
    expect(table.stdout).toContain(id);
    expect(table.stdout).toContain('ubuntu:24.04');
    expect((await json(['instances', 'show', id])).status).toBe('running');

    const ssh = await cgw(['ssh', id, '--print'], { env });
    expect(ssh.stderr).toBe('');
    expect(ssh.stdout).toMatch(/^ssh -p \d+ root@\S+\n$/);
    const sshJson = await json(['ssh', id, '--user', 'ubuntu']);
    expect(ssh.stdout).toContain(`-p ${sshJson.port} `);
    expect(sshJson.command).toEqual(['ssh', '-p', String(sshJson.port), `ubuntu@${sshJson.host}`]);

    expect((await json(['instances', 'stop', id])).desired_status).toBe('stopped');
    const deleted = await cgw(['instances', 'delete', id], { env });
    expect(deleted.code).toBe(0);
    expect(deleted.stdout).toContain(id);

    const unknown = await cgw(['instances', 'show', 'task_doesnotexist'], { env });
    expect(unknown.code).toBe(4);
    expect(unknown.stderr).toMatch(ERROR_LINE);
  });
});

describe('cgw burst and volumes', () => {
  it('estimates and places a burst order, then shows and lists it', async () => {
    const plan = await json(['burst', 'estimate', '--image', 'ubuntu:24.04', '--gpu', 'RTX_4090', '--gpus', '2']);
    expect(plan).toMatchObject({ gpu_count: 2, planned_gpus: 2, shortfall: 0 });
    const table = await cgw(['burst', 'estimate', '--image', 'ubuntu:24.04', '--gpu', 'RTX_4090', '--gpus', '2'], {
      env,
    });
    expect(table.stdout).toContain('2/2 GPUs planned');
    const order = await json([
      'burst',
      'create',
      '--image',
      'ubuntu:24.04',
      '--gpu',
      'RTX_4090',
      '--gpus',
      '2',
      '--pricing',
      'hour',
    ]);
    expect(order.gpu_count).toBe(2);
    expect((await json(['burst', 'show', order.order_id])).order_id).toBe(order.order_id);
    expect((await cgw(['burst', 'list'], { env })).stdout).toContain(order.order_id);
    const bad = await cgw(['burst', 'create', '--image', 'x', '--gpu', 'RTX_4090', '--gpus', '1', '--extra', 'A100'], {
      env,
    });
    expect(bad.code).toBe(2);
  });

  it('creates, lists and deletes a volume', async () => {
    const volume = await json(['volumes', 'create', '--size', '20', '--name', 'datasets']);
    expect(volume).toMatchObject({ size_gb: 20, name: 'datasets', status: 'active' });
    expect((await cgw(['volumes'], { env })).stdout).toContain('datasets');
    expect((await json(['volumes', 'delete', String(volume.volume_id)])).status).toBe('deleted');
  });
});

import type { components } from '../../../generated/openapi.js';
import type { Discounts } from '../../adapters/market-store/index.js';
import { microsToUsd, usdToMicros } from '../../domain/billing/money.js';
import { earningsByMachineAndDay } from '../../domain/market/earnings.js';
import type { Listing } from '../../domain/market/machines.js';
import { isOnline } from '../../domain/market/rentals.js';
import { dockerVolumeName } from '../../domain/market/volumes.js';
import { dayRange } from '../../domain/usage/usage-aggregates.js';
import { abortWhenClientLeaves } from '../../http/client-abort.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { machineView } from '../views/market-views.js';

type WireListing = components['schemas']['MachineListing'];

const basisPoints = (d: components['schemas']['Discounts']): Discounts => ({
  day: Math.round(d.day * 100),
  week: Math.round(d.week * 100),
  month: Math.round(d.month * 100),
});

/** The listing fields sent, in the domain's units (micro-USD, basis points, milliseconds). */
function listingOf(body: WireListing): Partial<Listing> {
  return {
    ...(body.price_per_gpu_hour_usd === undefined
      ? {}
      : { pricePerGpuHourMicros: usdToMicros(body.price_per_gpu_hour_usd) }),
    ...(body.min_gpus === undefined ? {} : { minGpus: body.min_gpus }),
    ...(body.discounts === undefined ? {} : { discountsBp: basisPoints(body.discounts) }),
    ...(body.available_until === undefined
      ? {}
      : { availableUntilMs: body.available_until === null ? null : body.available_until * 1000 }),
    ...(body.listed === undefined ? {} : { listed: body.listed }),
  };
}

export const registerMachine: Handler<'registerMachine'> = async ({ deps, principal, body }) => {
  const input = body!;
  const inventory = {
    name: input.name,
    gpuName: input.gpu_name,
    gpuCount: input.gpu_count,
    vramGb: input.vram_gb,
    cpuCores: input.cpu_cores,
    ramGb: input.ram_gb,
    diskGb: input.disk_gb,
    location: input.location,
  };
  const listing = { ...listingOf(input), pricePerGpuHourMicros: usdToMicros(input.price_per_gpu_hour_usd!) }; // required by the contract
  const machine = await deps.market.machines.register(requirePrincipal(principal), inventory, listing);
  return { status: 201, body: nativeOk(machineView(machine, true)) };
};

export const listMachines: Handler<'listMachines'> = async ({ deps, principal }) => {
  const now = deps.now();
  const machines = await deps.market.machines.list(requirePrincipal(principal));
  return {
    status: 200,
    body: nativeOk({ machines: machines.map((m) => machineView(m, isOnline(m, now, deps.config.MACHINE_OFFLINE_MS))) }),
  };
};

export const updateMachineListing: Handler<'updateMachineListing'> = async ({ deps, principal, params, body }) => {
  const machine = await deps.market.machines.updateListing(
    requirePrincipal(principal),
    params.machine_id,
    listingOf(body!),
  );
  return {
    status: 200,
    body: nativeOk(machineView(machine, isOnline(machine, deps.now(), deps.config.MACHINE_OFFLINE_MS))),
  };
};

export const machineHeartbeat: Handler<'machineHeartbeat'> = async ({ deps, principal, params, body }) => {
  const containers = (body?.containers ?? []).map((c) => ({ instanceId: c.instance_id, state: c.state }));
  const { assignments, volumes } = await deps.market.machines.heartbeat(
    requirePrincipal(principal),
    params.machine_id,
    containers,
  );
  return {
    status: 200,
    body: nativeOk({
      assignments: assignments.map(({ instance: i, sshPublicKeys }) => ({
        instance_id: i.id,
        desired_status: i.desiredStatus,
        docker_image: i.dockerImage,
        disk_gb: i.diskGb,
        gpu_indexes: i.gpuIndexes,
        ssh_public_keys: sshPublicKeys,
        volume: i.volumeId === null ? null : dockerVolumeName(i.volumeId),
      })),
      volumes,
    }),
  };
};

/** The agent's long poll for SSH tunnels to open; ends early when the agent hangs up. */
export const waitForTunnels: Handler<'waitForTunnels'> = async ({ deps, principal, params, query, req, res }) => {
  const machine = await deps.market.machines.owned(requirePrincipal(principal), params.machine_id);
  const connections = await deps.market.sshProxy.waitForTunnels(
    machine.id,
    (query.wait_seconds ?? 25) * 1000,
    abortWhenClientLeaves(req, res),
  );
  return {
    status: 200,
    body: nativeOk({
      connections: connections.map((c) => ({ token: c.token, instance_id: c.instanceId, tunnel: c.tunnel })),
    }),
  };
};

export const getProviderEarnings: Handler<'getProviderEarnings'> = async ({ deps, principal, query }) => {
  const range = dayRange(deps.now(), query.from, query.to);
  const rows = await earningsByMachineAndDay(deps.market.store, requirePrincipal(principal), range);
  const total = (pick: (r: (typeof rows)[number]) => bigint) => microsToUsd(rows.reduce((sum, r) => sum + pick(r), 0n));
  return {
    status: 200,
    body: nativeOk({
      ...range,
      days: rows.map((r) => ({
        date: r.date,
        machine_id: r.machineId,
        charged_usd: microsToUsd(r.chargedMicros),
        earned_usd: microsToUsd(r.earnedMicros),
        settlements: r.settlements,
      })),
      total_charged_usd: total((r) => r.chargedMicros),
      total_earned_usd: total((r) => r.earnedMicros),
    }),
  };
};

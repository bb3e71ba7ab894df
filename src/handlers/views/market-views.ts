import type { components } from '../../../generated/openapi.js';
import type {
  BurstOrderRecord,
  Discounts,
  InstanceEvent,
  InstanceRecord,
  InstanceStatus,
  MachineRecord,
  OfferRecord,
  PriceRise,
  VolumeRecord,
} from '../../adapters/market-store/index.js';
import { microsToUsd } from '../../domain/billing/money.js';
import type { BurstPlan, FanOutFailure } from '../../domain/market/burst-orders.js';
import { slotTerms } from '../../domain/market/burst-orders.js';
import { dueAtStartOn } from '../../domain/market/plan-fit.js';
import { PRICING_TYPES, UNIT_MS, unitPriceMicros } from '../../domain/market/plans.js';
import { runningTime } from '../../domain/market/rentals.js';
import { storageCost } from '../../domain/market/volumes.js';

type Schemas = components['schemas'];

const seconds = (ms: number): number => Math.floor(ms / 1000);
const secondsOrNull = (ms: number | null): number | null => (ms === null ? null : seconds(ms));
const percents = (bp: Discounts): Schemas['Discounts'] => ({
  day: bp.day / 100,
  week: bp.week / 100,
  month: bp.month / 100,
});

/** A rise announced and not yet applied (docs/marketplace.md "the price shown"). */
const riseView = (rise: PriceRise | null): Schemas['PriceRise'] | null =>
  rise === null
    ? null
    : {
        price_per_gpu_hour_usd: microsToUsd(rise.pricePerGpuHourMicros),
        discounts: percents(rise.discountsBp),
        applies_at: Math.ceil(rise.atMs / 1000),
      };

/** An offer with the price of every plan for its minimum rental (SPEC 1.2-1.3), and which the caller's `availableMicros` can start. */
export function offerView(o: OfferRecord, availableMicros: bigint): Schemas['Offer'] {
  const prices = Object.fromEntries(
    PRICING_TYPES.map((type) => {
      const due = dueAtStartOn(o, o.minGpus, type);
      return [
        type,
        {
          per_gpu_usd: microsToUsd(unitPriceMicros(o, type)),
          unit_seconds: UNIT_MS[type] / 1000,
          due_at_start_usd: microsToUsd(due),
          fits_balance: due <= availableMicros,
        },
      ];
    }),
  ) as Schemas['Offer']['prices'];
  return {
    offer_id: o.id,
    gpu_name: o.gpuName,
    gpu_count: o.gpuCount,
    free_gpus: o.freeGpus,
    min_gpus: o.minGpus,
    vram_gb: o.vramGb,
    cpu_cores: o.cpuCores,
    ram_gb: o.ramGb,
    disk_gb: o.diskGb,
    location: o.location,
    verification: o.verification,
    reliability: o.reliabilityBp / 10_000,
    price_per_gpu_hour_usd: microsToUsd(o.pricePerGpuHourMicros),
    price_rise: riseView(o.priceRise),
    discounts: percents(o.discountsBp),
    available_until: secondsOrNull(o.availableUntilMs),
    prices,
  };
}

/** A rental as its renter sees it, its running time counted up to `untilMs`; `sshHost` is the SSH proxy's name. */
export function instanceView(
  i: InstanceRecord,
  untilMs: number,
  sshHost: string,
  history?: InstanceEvent[],
): Schemas['Instance'] {
  return {
    task_id: i.id,
    offer_id: i.machineId,
    gpu_name: i.gpuName,
    gpu_count: i.gpuCount,
    gpu_indexes: i.gpuIndexes,
    docker_image: i.dockerImage,
    disk_gb: i.diskGb,
    pricing_type: i.pricingType,
    unit_price_usd: microsToUsd(i.unitPriceMicros),
    term_seconds: secondsOrNull(i.termMs),
    desired_status: i.desiredStatus,
    status: i.status,
    status_reason: i.statusReason,
    running_seconds: runningTime(i, untilMs) / 1000,
    charged_usd: microsToUsd(i.chargedMicros),
    ssh_host: i.sshPort === null ? null : sshHost,
    ssh_port: i.sshPort,
    volume_id: i.volumeId,
    created_at: seconds(i.createdAtMs),
    updated_at: seconds(i.updatedAtMs),
    ...(history === undefined
      ? {}
      : {
          history: history.map((e) => ({
            at: e.atMs,
            status: e.status,
            desired_status: e.desiredStatus,
            reason: e.reason,
          })),
        }),
  };
}

export function machineView(m: MachineRecord, online: boolean): Schemas['Machine'] {
  return {
    machine_id: m.id,
    name: m.name,
    gpu_name: m.gpuName,
    gpu_count: m.gpuCount,
    vram_gb: m.vramGb,
    cpu_cores: m.cpuCores,
    ram_gb: m.ramGb,
    disk_gb: m.diskGb,
    location: m.location,
    price_per_gpu_hour_usd: microsToUsd(m.pricePerGpuHourMicros),
    price_rise: riseView(m.priceRise),
    min_gpus: m.minGpus,
    discounts: percents(m.discountsBp),
    available_until: secondsOrNull(m.availableUntilMs),
    listed: m.listed,
    verification: m.verification,
    reliability: m.reliabilityBp / 10_000,
    online,
    last_heartbeat_at: secondsOrNull(m.lastHeartbeatMs),
    created_at: seconds(m.createdAtMs),
  };
}

const usdOrNull = (micros: bigint | null): number | null => (micros === null ? null : microsToUsd(micros));

/** An order's status from its rentals' (running only when every live one runs). */
function orderStatus(counts: Record<InstanceStatus, number>): Schemas['BurstOrder']['status'] {
  const live = counts.pending + counts.running + counts.offline;
  if (live === 0) return counts.stopped > 0 ? 'stopped' : 'terminated';
  if (counts.offline > 0) return 'degraded';
  return counts.pending > 0 ? 'starting' : 'running';
}

export function burstOrderView(
  order: BurstOrderRecord,
  instances: InstanceRecord[],
  nowMs: number,
  sshHost: string,
  failures?: FanOutFailure[],
): Schemas['BurstOrder'] {
  const counts: Record<InstanceStatus, number> = { pending: 0, running: 0, offline: 0, stopped: 0, terminated: 0 };
  for (const i of instances) counts[i.status]++;
  const [primary, ...extras] = order.tiers;
  return {
    order_id: order.id,
    status: orderStatus(counts),
    desired_status: order.desiredStatus,
    docker_image: order.dockerImage,
    primary_gpu: primary!.gpuName,
    primary_max_price: usdOrNull(primary!.maxPricePerGpuHourMicros),
    gpu_count: order.gpuCount,
    extra_gpus: extras.map((t) => ({ gpu_name: t.gpuName, max_price: microsToUsd(t.maxPricePerGpuHourMicros!) })),
    disk_gb: order.diskGb,
    pricing_type: order.pricingType,
    volume_id: order.volumeId,
    placed_gpus: instances.reduce((sum, i) => sum + i.gpuCount, 0),
    counts,
    instances: instances.map((i) => instanceView(i, nowMs, sshHost)),
    ...(failures === undefined
      ? {}
      : {
          failures: failures.map((f) => ({ task_id: f.instanceId, error_code: f.error.code, error: f.error.message })),
        }),
    created_at: seconds(order.createdAtMs),
    updated_at: seconds(order.updatedAtMs),
  };
}

export function burstEstimateView(
  plan: BurstPlan,
  gpuCount: number,
  pricingType: BurstOrderRecord['pricingType'],
): Schemas['BurstEstimate'] {
  return {
    gpu_count: gpuCount,
    planned_gpus: gpuCount - plan.shortfall,
    shortfall: plan.shortfall,
    pricing_type: pricingType,
    slots: plan.slots.map((s) => ({
      offer_id: s.offer.id,
      gpu_name: s.offer.gpuName,
      gpus: s.gpus,
      price_per_gpu_hour_usd: microsToUsd(s.offer.pricePerGpuHourMicros),
      unit_price_usd: microsToUsd(slotTerms(s, pricingType).unitPriceMicros),
      location: s.offer.location,
      verification: s.offer.verification,
    })),
    per_hour_usd: microsToUsd(plan.slots.reduce((sum, s) => sum + s.offer.pricePerGpuHourMicros * BigInt(s.gpus), 0n)),
    due_at_start_usd: microsToUsd(plan.dueAtStartMicros),
  };
}

/** A volume as its owner sees it (SPEC 1.8), charged up to `settledUntilMs`. */
export function volumeView(v: VolumeRecord): Schemas['Volume'] {
  return {
    volume_id: v.id,
    name: v.name,
    size_gb: v.sizeGb,
    machine_id: v.machineId,
    status: v.deletedAtMs === null ? 'active' : 'deleted',
    price_per_gb_month_usd: microsToUsd(v.priceMicrosPerGbMonth),
    cost_per_hour_usd: microsToUsd(storageCost(v.sizeGb, v.priceMicrosPerGbMonth, UNIT_MS.hour)),
    charged_usd: microsToUsd(v.chargedMicros),
    settled_until: seconds(v.settledUntilMs),
    created_at: seconds(v.createdAtMs),
    deleted_at: secondsOrNull(v.deletedAtMs),
  };
}

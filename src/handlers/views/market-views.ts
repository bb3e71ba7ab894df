import type { components } from '../../../generated/openapi.js';
import type { Discounts, InstanceEvent, InstanceRecord, MachineRecord, OfferRecord } from '../../adapters/market-store/index.js';
import { microsToUsd } from '../../domain/money.js';
import { dueAtStart, isTermPlan, PRICING_TYPES, UNIT_MS, unitPriceMicros } from '../../domain/market/plans.js';
import { runningTime } from '../../domain/market/rentals.js';

type Schemas = components['schemas'];

const seconds = (ms: number): number => Math.floor(ms / 1000);
const secondsOrNull = (ms: number | null): number | null => (ms === null ? null : seconds(ms));
const percents = (bp: Discounts): Schemas['Discounts'] => ({ day: bp.day / 100, week: bp.week / 100, month: bp.month / 100 });

/** An offer with the price of every plan for its minimum rental (SPEC 1.2-1.3). */
export function offerView(o: OfferRecord): Schemas['Offer'] {
  const prices = Object.fromEntries(
    PRICING_TYPES.map((type) => {
      const unit = unitPriceMicros(o, type);
      const terms = { pricingType: type, unitPriceMicros: unit, gpuCount: o.minGpus, termMs: isTermPlan(type) ? UNIT_MS[type] : null };
      return [type, { per_gpu_usd: microsToUsd(unit), unit_seconds: UNIT_MS[type] / 1000, due_at_start_usd: microsToUsd(dueAtStart(terms, 0n)) }];
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
    price_per_gpu_hour_usd: microsToUsd(o.pricePerGpuHourMicros),
    discounts: percents(o.discountsBp),
    available_until: secondsOrNull(o.availableUntilMs),
    prices,
  };
}

/** A rental as its renter sees it, its running time counted up to `untilMs`. */
export function instanceView(i: InstanceRecord, untilMs: number, history?: InstanceEvent[]): Schemas['Instance'] {
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
    ssh_host: null,
    ssh_port: i.sshPort,
    created_at: seconds(i.createdAtMs),
    updated_at: seconds(i.updatedAtMs),
    ...(history === undefined ? {} : { history: history.map((e) => ({ at: e.atMs, status: e.status, desired_status: e.desiredStatus, reason: e.reason })) }),
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
    min_gpus: m.minGpus,
    discounts: percents(m.discountsBp),
    available_until: secondsOrNull(m.availableUntilMs),
    listed: m.listed,
    verification: m.verification,
    online,
    last_heartbeat_at: secondsOrNull(m.lastHeartbeatMs),
    created_at: seconds(m.createdAtMs),
  };
}

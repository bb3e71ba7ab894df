/**
 * Burst orders (SPEC 1.7, 2.10): up to 100 GPUs placed in one call across providers' machines, as rentals of one
 * order. The allocator takes strict tiers (research/marketplace.md §4.2): the primary GPU type first, then each
 * `extra_gpus` type in the order given, only on offers at or under the tier's price cap; within a tier the cheapest
 * machines first, then the most reliable, verified before unverified, the most free GPUs first (fewer machines, fewer failure points). GPUs
 * are taken per machine in one transaction each (SKIP LOCKED on PostgreSQL), so concurrent orders never share one; a
 * machine taken meanwhile is skipped and the rest re-planned. By default an order is all or nothing: when fewer GPUs
 * than asked can be placed, everything placed is released and nothing is charged.
 */
import type { Ledger } from '../../adapters/ledger/index.js';
import type {
  BurstOrderRecord,
  GpuTier,
  InstanceEvent,
  InstanceRecord,
  MarketStore,
  OfferRecord,
  PricingType,
  SettlementRecord,
} from '../../adapters/market-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { assertNoDebt } from '../billing/debt-guard.js';
import { microsToUsd } from '../billing/money.js';
import type { Principal } from '../keys/authenticator.js';
import { dueAtStart, isTermPlan, UNIT_MS, unitPriceMicros } from './plans.js';
import type { Rentals } from './rentals.js';
import type { Volumes } from './volumes.js';

export interface BurstRequest {
  dockerImage: string;
  tiers: GpuTier[];
  gpuCount: number;
  diskGb: number;
  pricingType: PricingType;
  /** false: keep what could be placed when fewer GPUs are free than asked. */
  allOrNothing: boolean;
  /**
   * SPEC 2.10 `volume_id`: the volume every rental mounts. A volume is a disk on one machine (./volumes.ts), so such
   * an order is placed whole on one machine: the volume's own once it has one, else the first that can take it all.
   */
  volumeId: number | null;
}

/** GPUs of one machine the allocator would take, at the machine's price now. */
export interface Slot {
  tier: GpuTier;
  offer: OfferRecord;
  gpus: number;
}

export interface BurstPlan {
  slots: Slot[];
  /** GPUs asked for that no offer under the caps can give now. */
  shortfall: number;
  /** What starting every slot needs in the balance (terms held whole, an hour of runtime for metered plans). */
  dueAtStartMicros: bigint;
}

export interface FanOutFailure {
  instanceId: string;
  error: ApiError;
}

export interface BurstDeps {
  store: MarketStore;
  rentals: Rentals;
  volumes: Volumes;
  ledger: Ledger;
  now: () => number;
  offlineAfterMs: number;
}

const OFFERS_PER_TIER = 500;
/** Re-plans after machines were taken by concurrent orders, before giving up. */
const PLACEMENT_ROUNDS = 5;

export class BurstOrders {
  constructor(private readonly deps: BurstDeps) {}

  /** The cost estimate (a dry run of the allocator: nothing is taken). */
  async estimate(principal: Principal, request: BurstRequest): Promise<BurstPlan> {
    return this.plan(
      principal.accountId,
      request,
      request.gpuCount,
      this.deps.now(),
      await this.volumeMachine(principal, request),
    );
  }

  /** The machine an order's volume pins it to: undefined without a volume, null for a volume on no machine yet. */
  private async volumeMachine(principal: Principal, request: BurstRequest): Promise<string | null | undefined> {
    return request.volumeId === null
      ? undefined
      : (await this.deps.volumes.checkAttachable(principal, request.volumeId, null)).machineId;
  }

  /**
   * Places the order: 409 `insufficient_capacity` when fewer GPUs than asked are free under the caps (all or
   * nothing), 402 when the balance cannot start them all; either way nothing stays taken or held.
   */
  async create(
    principal: Principal,
    request: BurstRequest,
  ): Promise<{ order: BurstOrderRecord; instances: InstanceRecord[] }> {
    assertNoDebt(principal.account);
    const now = this.deps.now();
    const onMachine = await this.volumeMachine(principal, request);
    const first = await this.plan(principal.accountId, request, request.gpuCount, now, onMachine);
    if (first.shortfall > 0 && (request.allOrNothing || first.slots.length === 0))
      throw noCapacity(request.gpuCount, request.gpuCount - first.shortfall);
    // A quick 402 before anything is taken; what enforces the balance is each placement's hold (Rentals.place).
    const { availableMicros } = await this.deps.ledger.getBalance(principal.accountId);
    if (availableMicros < first.dueAtStartMicros) {
      throw new ApiError(
        'insufficient_balance',
        `Starting ${request.gpuCount} GPUs needs $${microsToUsd(first.dueAtStartMicros)} available; the balance has $${microsToUsd(availableMicros)}`,
      );
    }
    const order: BurstOrderRecord = {
      id: newId('burst'),
      accountId: principal.accountId,
      dockerImage: request.dockerImage,
      tiers: request.tiers,
      gpuCount: request.gpuCount,
      diskGb: request.diskGb,
      pricingType: request.pricingType,
      volumeId: request.volumeId,
      desiredStatus: 'running',
      createdAtMs: now,
      updatedAtMs: now,
    };
    await this.deps.store.addBurstOrder(order);
    const placed: InstanceRecord[] = [];
    try {
      let need = request.gpuCount;
      let plan = first;
      for (let round = 0; round < PLACEMENT_ROUNDS && need > 0 && plan.slots.length > 0; round++) {
        for (const slot of plan.slots) {
          const rental = await this.deps.rentals.place(
            principal.accountId,
            {
              machine: slot.offer,
              gpuCount: slot.gpus,
              pricingType: request.pricingType,
              dockerImage: request.dockerImage,
              diskGb: request.diskGb,
              burstOrderId: order.id,
              volumeId: request.volumeId,
            },
            now,
          );
          if (rental === null) continue; // taken by a concurrent order: re-planned below
          placed.push(rental);
          need -= slot.gpus;
        }
        if (need > 0) plan = await this.plan(principal.accountId, request, need, now, onMachine);
      }
      if (need > 0 && (request.allOrNothing || placed.length === 0))
        throw noCapacity(request.gpuCount, request.gpuCount - need);
    } catch (err) {
      await this.undo(order.id, placed);
      throw err;
    }
    return { order, instances: placed };
  }

  private async undo(orderId: string, placed: InstanceRecord[]): Promise<void> {
    for (const rental of placed) await this.deps.rentals.unplace(rental);
    await this.deps.store.removeBurstOrder(orderId);
  }

  /**
   * The allocator itself: `need` GPUs over the tiers in order, under each cap (never the renter's own machines). With
   * a volume (`onMachine` defined), all of them on one machine: `onMachine` itself, or any when it is null.
   */
  private async plan(
    accountId: string,
    request: BurstRequest,
    need: number,
    now: number,
    onMachine?: string | null,
  ): Promise<BurstPlan> {
    const slots: Slot[] = [];
    let left = need;
    for (const tier of request.tiers) {
      if (left === 0) break;
      const { offers } = await this.deps.store.searchOffers({
        gpuNames: [tier.gpuName],
        ...(tier.maxPricePerGpuHourMicros === null ? {} : { maxPricePerGpuHourMicros: tier.maxPricePerGpuHourMicros }),
        verifiedOnly: false,
        heardSinceMs: now - this.deps.offlineAfterMs,
        nowMs: now,
        minFreeGpus: 1,
        sort: 'price',
        limit: OFFERS_PER_TIER,
        offset: 0,
      });
      for (const offer of offers.sort(preference)) {
        if (left === 0) break;
        const gpus = Math.min(offer.freeGpus, left);
        if (offer.diskGb < request.diskGb || gpus < offer.minGpus || offer.providerAccountId === accountId) continue;
        if (onMachine !== undefined && (gpus < left || (onMachine !== null && offer.id !== onMachine))) continue;
        slots.push({ tier, offer, gpus });
        left -= gpus;
      }
    }
    const dueAtStartMicros = slots.reduce((sum, s) => sum + dueAtStart(slotTerms(s, request.pricingType), 0n), 0n);
    return { slots, shortfall: left, dueAtStartMicros };
  }

  async get(principal: Principal, orderId: string): Promise<{ order: BurstOrderRecord; instances: InstanceRecord[] }> {
    const order = await this.owned(principal, orderId);
    return { order, instances: await this.deps.store.orderInstances(order.id) };
  }

  async list(
    principal: Principal,
    limit: number,
    offset: number,
  ): Promise<{ order: BurstOrderRecord; instances: InstanceRecord[] }[]> {
    const orders = await this.deps.store.listBurstOrders(principal.accountId, limit, offset);
    return Promise.all(
      orders.map(async (order) => ({ order, instances: await this.deps.store.orderInstances(order.id) })),
    );
  }

  /** Starts, stops or deletes every rental of the order; a rental that cannot (its GPUs gone) is reported, the others go on. */
  async fanOut(
    principal: Principal,
    orderId: string,
    action: 'start' | 'stop' | 'remove',
  ): Promise<{ order: BurstOrderRecord; instances: InstanceRecord[]; failures: FanOutFailure[] }> {
    const order = await this.owned(principal, orderId);
    const failures: FanOutFailure[] = [];
    const instances = await this.deps.store.orderInstances(order.id);
    // A deleted order stays deleted: there is nothing to start or stop.
    if (instances.every((i) => i.desiredStatus === 'terminated')) return { order, instances, failures };
    for (const instance of instances) {
      if (instance.desiredStatus === 'terminated') continue;
      try {
        await this.deps.rentals[action](principal, instance.id);
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        failures.push({ instanceId: instance.id, error: err });
      }
    }
    const desiredStatus = action === 'start' ? 'running' : action === 'stop' ? 'stopped' : 'terminated';
    const updated = { ...order, desiredStatus, updatedAtMs: this.deps.now() } as const;
    await this.deps.store.updateBurstOrder(order.id, updated);
    return { order: updated, instances: await this.deps.store.orderInstances(order.id), failures };
  }

  /** The order's billing transactions (SPEC 4.5): every settlement of its rentals, newest first. */
  async transactions(principal: Principal, orderId: string, limit: number): Promise<SettlementRecord[]> {
    const order = await this.owned(principal, orderId);
    const instances = await this.deps.store.orderInstances(order.id);
    return this.deps.store.settlements(
      instances.map((i) => i.id),
      limit,
    );
  }

  /** The order's GPU run history (SPEC 4.5): every status change of its rentals, newest first. */
  async history(
    principal: Principal,
    orderId: string,
    limit: number,
  ): Promise<(InstanceEvent & { instanceId: string })[]> {
    const order = await this.owned(principal, orderId);
    const events = [];
    for (const instance of await this.deps.store.orderInstances(order.id)) {
      for (const event of await this.deps.store.history(instance.id))
        events.push({ ...event, instanceId: instance.id });
    }
    return events.sort((a, b) => b.atMs - a.atMs).slice(0, limit);
  }

  private async owned(principal: Principal, orderId: string): Promise<BurstOrderRecord> {
    const order = await this.deps.store.getBurstOrder(orderId);
    if (order === null || order.accountId !== principal.accountId)
      throw new ApiError('burst_order_not_found', `No burst order ${orderId}`, { notFound: true });
    return order;
  }
}

/** Within a tier: cheapest, then the most reliable, then verified, then the most free GPUs. */
function preference(a: OfferRecord, b: OfferRecord): number {
  if (a.pricePerGpuHourMicros !== b.pricePerGpuHourMicros)
    return a.pricePerGpuHourMicros < b.pricePerGpuHourMicros ? -1 : 1;
  if (a.reliabilityBp !== b.reliabilityBp) return b.reliabilityBp - a.reliabilityBp;
  const verified = Number(b.verification === 'verified') - Number(a.verification === 'verified');
  return verified !== 0 ? verified : b.freeGpus - a.freeGpus;
}

/** A slot's rental terms at the offer's price now. */
export function slotTerms(slot: Slot, pricingType: PricingType) {
  return {
    pricingType,
    unitPriceMicros: unitPriceMicros(slot.offer, pricingType),
    gpuCount: slot.gpus,
    termMs: isTermPlan(pricingType) ? UNIT_MS[pricingType] : null,
  };
}

function noCapacity(asked: number, available: number): ApiError {
  return new ApiError(
    'insufficient_capacity',
    `${asked} GPUs were asked for; ${available} are free under the price caps now. Nothing was placed or charged`,
    {
      meta: { gpus_requested: asked, gpus_available: available },
    },
  );
}

import { utcDayStartMs } from '../../lib/utc-days.js';
import { gpuNameKey } from './gpu-name-key.js';
import type {
  BurstOrderRecord,
  ChangeOutcome,
  EarningsGroup,
  InstanceChange,
  InstanceEvent,
  InstanceRecord,
  MachineRecord,
  MarketStore,
  OfferQuery,
  OfferRecord,
  PlaceOutcome,
  SettlementRecord,
} from './index.js';
import { MemoryVolumeStore } from './memory-volumes.js';
import { MINUTE_MS, RELIABILITY_WINDOW_MINUTES, reliabilityBp } from './reliability.js';

const SORT_KEYS: Record<OfferQuery['sort'], (o: OfferRecord) => number | bigint> = {
  price: (o) => o.pricePerGpuHourMicros,
  '-price': (o) => -o.pricePerGpuHourMicros,
  vram: (o) => o.vramGb,
  '-vram': (o) => -o.vramGb,
  reliability: (o) => o.reliabilityBp,
  '-reliability': (o) => -o.reliabilityBp,
};

const copyMachine = (m: MachineRecord): MachineRecord => ({
  ...m,
  discountsBp: { ...m.discountsBp },
  priceRise: m.priceRise === null ? null : { ...m.priceRise, discountsBp: { ...m.priceRise.discountsBp } },
});

/** The in-memory twin of the market store (tests, and the conformance suite's reference). */
export class MemoryMarketStore implements MarketStore {
  private readonly machines = new Map<string, MachineRecord>();
  /** machine id → per GPU index, the instance holding it (null: free). */
  private readonly gpus = new Map<string, (string | null)[]>();
  private readonly instances = new Map<string, Omit<InstanceRecord, 'gpuIndexes'>>();
  private readonly events = new Map<string, InstanceEvent[]>();
  private readonly orders = new Map<string, BurstOrderRecord>();
  private readonly settled: SettlementRecord[] = [];
  private readonly uptime = new Map<string, Set<number>>();
  /** What each instance held before its last release. */
  private readonly lastGpus = new Map<string, number[]>();
  readonly volumes = new MemoryVolumeStore((volumeId) =>
    [...this.instances.values()].some((i) => i.volumeId === volumeId && i.desiredStatus !== 'terminated'),
  );

  async addMachine(machine: MachineRecord): Promise<void> {
    if (this.machines.has(machine.id)) throw new Error(`machine ${machine.id} exists`);
    this.machines.set(machine.id, copyMachine(machine));
    this.gpus.set(
      machine.id,
      Array.from({ length: machine.gpuCount }, () => null),
    );
  }

  async getMachine(id: string): Promise<MachineRecord | null> {
    const m = this.machines.get(id);
    return m === undefined ? null : copyMachine(m);
  }

  async listMachines(providerAccountId: string): Promise<MachineRecord[]> {
    return [...this.machines.values()]
      .filter((m) => m.providerAccountId === providerAccountId)
      .sort((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id));
  }

  async updateMachine(id: string, patch: Parameters<MarketStore['updateMachine']>[1]): Promise<MachineRecord | null> {
    const m = this.machines.get(id);
    if (m === undefined) return null;
    this.machines.set(id, { ...m, ...patch });
    return this.getMachine(id);
  }

  async searchOffers(q: OfferQuery): Promise<{ offers: OfferRecord[]; total: number }> {
    const matching = [...this.machines.values()]
      .map((m) => ({ ...m, freeGpus: this.freeCount(m.id) }))
      .filter(
        (m) =>
          m.listed &&
          m.lastHeartbeatMs !== null &&
          m.lastHeartbeatMs >= q.heardSinceMs &&
          (m.availableUntilMs === null || m.availableUntilMs > q.nowMs) &&
          m.freeGpus >= q.minFreeGpus &&
          m.freeGpus >= m.minGpus &&
          (q.gpuNames === undefined || q.gpuNames.map(gpuNameKey).includes(gpuNameKey(m.gpuName))) &&
          (q.minVramGb === undefined || m.vramGb >= q.minVramGb) &&
          (q.maxPricePerGpuHourMicros === undefined || m.pricePerGpuHourMicros <= q.maxPricePerGpuHourMicros) &&
          (q.locations === undefined || q.locations.includes(m.location)) &&
          (!q.verifiedOnly || m.verification === 'verified'),
      );
    const key = SORT_KEYS[q.sort];
    matching.sort((a, b) => {
      const [x, y] = [key(a), key(b)];
      return x < y ? -1 : x > y ? 1 : a.id.localeCompare(b.id);
    });
    return { offers: matching.slice(q.offset, q.offset + q.limit), total: matching.length };
  }

  async freeGpus(machineId: string): Promise<number> {
    return this.freeCount(machineId);
  }

  async applyPriceRises(nowMs: number): Promise<void> {
    for (const [id, m] of this.machines) {
      if (m.priceRise !== null && m.priceRise.atMs <= nowMs)
        this.machines.set(id, {
          ...m,
          pricePerGpuHourMicros: m.priceRise.pricePerGpuHourMicros,
          discountsBp: m.priceRise.discountsBp,
          priceRise: null,
        });
    }
  }

  private freeCount(machineId: string): number {
    return (this.gpus.get(machineId) ?? []).filter((holder) => holder === null).length;
  }

  async recordUptime(machineId: string, minute: number): Promise<void> {
    this.uptime.set(machineId, (this.uptime.get(machineId) ?? new Set()).add(minute));
  }

  async refreshReliability(nowMs: number): Promise<void> {
    const nowMinute = Math.floor(nowMs / MINUTE_MS);
    for (const [id, m] of this.machines) {
      const heard = [...(this.uptime.get(id) ?? [])].filter(
        (minute) => minute >= nowMinute - RELIABILITY_WINDOW_MINUTES,
      ).length;
      this.machines.set(id, {
        ...m,
        reliabilityBp: reliabilityBp(heard, nowMinute - Math.floor(m.createdAtMs / MINUTE_MS)),
      });
    }
  }

  async place(instance: Omit<InstanceRecord, 'gpuIndexes' | 'version'>): Promise<PlaceOutcome> {
    if (!this.take(instance.machineId, instance.id, instance.gpuCount)) return { ok: false, reason: 'gpus_taken' };
    if (
      instance.volumeId !== null &&
      !this.volumes.pin(instance.volumeId, instance.machineId, instance.providerAccountId)
    ) {
      this.free(instance.machineId, instance.id);
      return { ok: false, reason: 'volume_elsewhere' };
    }
    const record = { ...instance, version: 1 };
    this.instances.set(instance.id, record);
    this.addEvent(record);
    return { ok: true, instance: this.view(record) };
  }

  private take(machineId: string, instanceId: string, count: number, exactly?: number[]): boolean {
    const slots = this.gpus.get(machineId) ?? [];
    const free = slots
      .flatMap((holder, idx) => (holder === null && (exactly === undefined || exactly.includes(idx)) ? [idx] : []))
      .slice(0, count);
    if (free.length < count) return false;
    for (const idx of free) slots[idx] = instanceId;
    return true;
  }

  private free(machineId: string, instanceId: string): void {
    const slots = this.gpus.get(machineId) ?? [];
    slots.forEach((holder, idx) => holder === instanceId && (slots[idx] = null));
  }

  private view(i: Omit<InstanceRecord, 'gpuIndexes'>): InstanceRecord {
    const gpuIndexes = (this.gpus.get(i.machineId) ?? []).flatMap((holder, idx) => (holder === i.id ? [idx] : []));
    return { ...i, gpuIndexes };
  }

  async getInstance(id: string): Promise<InstanceRecord | null> {
    const i = this.instances.get(id);
    return i === undefined ? null : this.view(i);
  }

  async instancesAskedToRun(ids: readonly string[]): Promise<Set<string>> {
    return new Set(ids.filter((id) => this.instances.get(id)?.desiredStatus === 'running'));
  }

  async pendingCount(accountId: string): Promise<number> {
    return [...this.instances.values()].filter(
      (i) => i.accountId === accountId && i.status === 'pending' && i.desiredStatus === 'running',
    ).length;
  }

  async staleInstances(status: 'pending' | 'offline', beforeMs: number, limit: number): Promise<InstanceRecord[]> {
    return [...this.instances.values()]
      .filter((i) => i.status === status && i.desiredStatus === 'running' && i.updatedAtMs < beforeMs)
      .sort((a, b) => a.updatedAtMs - b.updatedAtMs)
      .slice(0, limit)
      .map((i) => this.view(i));
  }

  async listInstances(accountId: string, limit: number, offset: number): Promise<InstanceRecord[]> {
    return [...this.instances.values()]
      .filter((i) => i.accountId === accountId)
      .sort((a, b) => b.createdAtMs - a.createdAtMs || b.id.localeCompare(a.id))
      .slice(offset, offset + limit)
      .map((i) => this.view(i));
  }

  async machineInstances(machineId: string): Promise<InstanceRecord[]> {
    return [...this.instances.values()]
      .filter((i) => i.machineId === machineId && i.status !== 'terminated')
      .sort((a, b) => a.createdAtMs - b.createdAtMs)
      .map((i) => this.view(i));
  }

  async activeInstances(limit: number): Promise<InstanceRecord[]> {
    return [...this.instances.values()]
      .filter((i) => i.status === 'running' || i.pendingChargeMicros > 0n)
      .sort((a, b) => a.updatedAtMs - b.updatedAtMs)
      .slice(0, limit)
      .map((i) => this.view(i));
  }

  async settlements(instanceIds: string[], limit: number): Promise<SettlementRecord[]> {
    return this.settled
      .filter((r) => instanceIds.includes(r.instanceId))
      .sort((a, b) => b.atMs - a.atMs || b.seq - a.seq)
      .slice(0, limit)
      .map((r) => ({ ...r }));
  }

  async providerEarnings(providerAccountId: string, fromMs: number, toMs: number): Promise<EarningsGroup[]> {
    const groups = new Map<string, EarningsGroup>();
    for (const r of this.paidTo(providerAccountId)) {
      if (r.atMs < fromMs || r.atMs >= toMs) continue;
      const dayStartMs = utcDayStartMs(r.atMs);
      const key = `${dayStartMs}/${r.machineId}`;
      let group = groups.get(key);
      if (group === undefined) {
        group = { dayStartMs, machineId: r.machineId!, chargedMicros: 0n, providerMicros: 0n, settlements: 0 };
        groups.set(key, group);
      }
      group.chargedMicros += r.chargedMicros;
      group.providerMicros += r.providerMicros!;
      group.settlements++;
    }
    return [...groups.values()];
  }

  async providerEarnedMicros(providerAccountId: string, beforeMs: number): Promise<bigint> {
    let total = 0n;
    for (const r of this.paidTo(providerAccountId)) if (r.atMs < beforeMs) total += r.providerMicros!;
    return total;
  }

  /** The provider's posted settlements, rentals and volumes. */
  private paidTo(providerAccountId: string) {
    return [...this.settled, ...this.volumes.settled].filter(
      (r) => r.providerAccountId === providerAccountId && r.providerMicros !== null,
    );
  }

  async runningInstances(accountId: string): Promise<InstanceRecord[]> {
    return [...this.instances.values()]
      .filter((i) => i.accountId === accountId && i.status === 'running')
      .map((i) => this.view(i));
  }

  async holdsToRenew(nowMs: number, limit: number): Promise<InstanceRecord[]> {
    return [...this.instances.values()]
      .filter((i) => i.holdId !== null && i.holdRenewAtMs !== null && i.holdRenewAtMs <= nowMs)
      .sort((a, b) => a.holdRenewAtMs! - b.holdRenewAtMs!)
      .slice(0, limit)
      .map((i) => this.view(i));
  }

  async wantedRunning(accountId: string): Promise<InstanceRecord[]> {
    return [...this.instances.values()]
      .filter((i) => i.accountId === accountId && i.desiredStatus === 'running')
      .map((i) => this.view(i));
  }

  async change(id: string, version: number, change: InstanceChange): Promise<ChangeOutcome> {
    const current = this.instances.get(id);
    if (current === undefined || current.version !== version) return { ok: false, reason: 'stale' };
    const last = this.lastGpus.get(id);
    if (
      change.gpus === 'acquire' &&
      !this.take(current.machineId, id, current.gpuCount, last !== undefined && last.length > 0 ? last : undefined)
    )
      return { ok: false, reason: 'gpus_taken' };
    if (change.gpus === 'release') {
      this.lastGpus.set(id, this.view(current).gpuIndexes);
      this.free(current.machineId, id);
    }
    if (change.settlement !== undefined && 'recorded' in change.settlement)
      this.settled.push({ ...change.settlement.recorded });
    if (change.settlement !== undefined && 'posted' in change.settlement) {
      const { seq, providerMicros } = change.settlement.posted;
      const row = this.settled.find((r) => r.instanceId === id && r.seq === seq);
      if (row !== undefined) row.providerMicros = providerMicros;
    }
    const next = { ...current, ...change.patch, version: version + 1 };
    this.instances.set(id, next);
    if (
      next.status !== current.status ||
      next.desiredStatus !== current.desiredStatus ||
      next.statusReason !== current.statusReason
    )
      this.addEvent(next);
    return { ok: true, instance: this.view(next) };
  }

  async unplace(id: string): Promise<void> {
    const current = this.instances.get(id);
    if (current === undefined) return;
    this.free(current.machineId, id);
    this.instances.delete(id);
    this.events.delete(id);
  }

  async history(id: string): Promise<InstanceEvent[]> {
    return [...(this.events.get(id) ?? [])];
  }

  async addBurstOrder(order: BurstOrderRecord): Promise<void> {
    this.orders.set(order.id, { ...order, tiers: order.tiers.map((t) => ({ ...t })) });
  }

  async getBurstOrder(id: string): Promise<BurstOrderRecord | null> {
    const order = this.orders.get(id);
    return order === undefined ? null : { ...order, tiers: order.tiers.map((t) => ({ ...t })) };
  }

  async listBurstOrders(accountId: string, limit: number, offset: number): Promise<BurstOrderRecord[]> {
    return [...this.orders.values()]
      .filter((o) => o.accountId === accountId)
      .sort((a, b) => b.createdAtMs - a.createdAtMs || b.id.localeCompare(a.id))
      .slice(offset, offset + limit);
  }

  async updateBurstOrder(id: string, patch: Pick<BurstOrderRecord, 'desiredStatus' | 'updatedAtMs'>): Promise<void> {
    const order = this.orders.get(id);
    if (order !== undefined) this.orders.set(id, { ...order, ...patch });
  }

  async orderInstances(orderId: string): Promise<InstanceRecord[]> {
    return [...this.instances.values()]
      .filter((i) => i.burstOrderId === orderId)
      .sort((a, b) => a.createdAtMs - b.createdAtMs || a.id.localeCompare(b.id))
      .map((i) => this.view(i));
  }

  async removeBurstOrder(id: string): Promise<void> {
    this.orders.delete(id);
  }

  private addEvent(i: Omit<InstanceRecord, 'gpuIndexes'>): void {
    const list = this.events.get(i.id) ?? [];
    list.push({ atMs: i.updatedAtMs, status: i.status, desiredStatus: i.desiredStatus, reason: i.statusReason });
    this.events.set(i.id, list);
  }
}

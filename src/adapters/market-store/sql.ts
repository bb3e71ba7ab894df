import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
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
import { MINUTE_MS, RELIABILITY_WINDOW_MINUTES, reliabilityBp } from './reliability.js';
import { earnedBefore, earningsByDayAndMachine } from './sql-earnings.js';
import { big, num, numOrNull, type Row, rowOf } from './sql-rows.js';
import { writeSettlement } from './sql-settlements.js';
import { pinVolume, SqlVolumeStore } from './sql-volumes.js';

const machineOf = (r: Row): MachineRecord => ({
  id: r.id as string,
  providerAccountId: r.provider_account_id as string,
  name: r.name as string,
  gpuName: r.gpu_name as string,
  gpuCount: num(r.gpu_count),
  vramGb: num(r.vram_gb),
  cpuCores: num(r.cpu_cores),
  ramGb: num(r.ram_gb),
  diskGb: num(r.disk_gb),
  location: r.location as string,
  pricePerGpuHourMicros: big(r.price_per_gpu_hour_micros),
  minGpus: num(r.min_gpus),
  discountsBp: { day: num(r.day_discount_bp), week: num(r.week_discount_bp), month: num(r.month_discount_bp) },
  availableUntilMs: numOrNull(r.available_until_ms),
  listed: Boolean(r.listed),
  verification: r.verification as MachineRecord['verification'],
  lastHeartbeatMs: numOrNull(r.last_heartbeat_ms),
  reliabilityBp: num(r.reliability_bp),
  priceRise:
    r.rise_at_ms === null || r.rise_at_ms === undefined
      ? null
      : {
          pricePerGpuHourMicros: big(r.rise_price_micros),
          discountsBp: {
            day: num(r.rise_day_discount_bp),
            week: num(r.rise_week_discount_bp),
            month: num(r.rise_month_discount_bp),
          },
          atMs: num(r.rise_at_ms),
        },
  createdAtMs: num(r.created_at_ms),
});

const MACHINE_COLUMNS: Record<keyof Omit<MachineRecord, 'discountsBp' | 'priceRise'>, string> = {
  id: 'id',
  providerAccountId: 'provider_account_id',
  name: 'name',
  gpuName: 'gpu_name',
  gpuCount: 'gpu_count',
  vramGb: 'vram_gb',
  cpuCores: 'cpu_cores',
  ramGb: 'ram_gb',
  diskGb: 'disk_gb',
  location: 'location',
  pricePerGpuHourMicros: 'price_per_gpu_hour_micros',
  minGpus: 'min_gpus',
  availableUntilMs: 'available_until_ms',
  listed: 'listed',
  verification: 'verification',
  lastHeartbeatMs: 'last_heartbeat_ms',
  reliabilityBp: 'reliability_bp',
  createdAtMs: 'created_at_ms',
};

function machineRow(m: Partial<MachineRecord>): Row {
  const row = rowOf(m, MACHINE_COLUMNS);
  if (m.discountsBp !== undefined)
    Object.assign(row, {
      day_discount_bp: m.discountsBp.day,
      week_discount_bp: m.discountsBp.week,
      month_discount_bp: m.discountsBp.month,
    });
  if (m.priceRise !== undefined) Object.assign(row, riseRow(m.priceRise));
  return row;
}

function riseRow(rise: MachineRecord['priceRise']): Row {
  return {
    rise_price_micros: rise?.pricePerGpuHourMicros.toString() ?? null,
    rise_day_discount_bp: rise?.discountsBp.day ?? null,
    rise_week_discount_bp: rise?.discountsBp.week ?? null,
    rise_month_discount_bp: rise?.discountsBp.month ?? null,
    rise_at_ms: rise?.atMs ?? null,
  };
}

const INSTANCE_COLUMNS: Record<keyof Omit<InstanceRecord, 'gpuIndexes'>, string> = {
  id: 'id',
  accountId: 'account_id',
  burstOrderId: 'burst_order_id',
  machineId: 'machine_id',
  providerAccountId: 'provider_account_id',
  gpuName: 'gpu_name',
  gpuCount: 'gpu_count',
  dockerImage: 'docker_image',
  diskGb: 'disk_gb',
  pricingType: 'pricing_type',
  unitPriceMicros: 'unit_price_micros',
  termMs: 'term_ms',
  desiredStatus: 'desired_status',
  status: 'status',
  statusReason: 'status_reason',
  runningSinceMs: 'running_since_ms',
  runningMs: 'running_ms',
  settledRunningMs: 'settled_running_ms',
  chargedMicros: 'charged_micros',
  settleSeq: 'settle_seq',
  pendingChargeMicros: 'pending_charge_micros',
  minutePriceMicros: 'minute_price_micros',
  holdId: 'hold_id',
  holdRenewAtMs: 'hold_renew_at_ms',
  sshPort: 'ssh_port',
  volumeId: 'volume_id',
  createdAtMs: 'created_at_ms',
  updatedAtMs: 'updated_at_ms',
  version: 'version',
};

const instanceRow = (i: Partial<InstanceRecord>): Row => rowOf(i, INSTANCE_COLUMNS);

const instanceOf = (r: Row, gpuIndexes: number[]): InstanceRecord => ({
  id: r.id as string,
  accountId: r.account_id as string,
  burstOrderId: (r.burst_order_id ?? null) as string | null,
  machineId: r.machine_id as string,
  providerAccountId: r.provider_account_id as string,
  gpuName: r.gpu_name as string,
  gpuCount: num(r.gpu_count),
  dockerImage: r.docker_image as string,
  diskGb: num(r.disk_gb),
  pricingType: r.pricing_type as InstanceRecord['pricingType'],
  unitPriceMicros: big(r.unit_price_micros),
  termMs: numOrNull(r.term_ms),
  desiredStatus: r.desired_status as InstanceRecord['desiredStatus'],
  status: r.status as InstanceRecord['status'],
  statusReason: (r.status_reason ?? null) as InstanceRecord['statusReason'],
  runningSinceMs: numOrNull(r.running_since_ms),
  runningMs: num(r.running_ms),
  settledRunningMs: num(r.settled_running_ms),
  chargedMicros: big(r.charged_micros),
  settleSeq: num(r.settle_seq),
  pendingChargeMicros: big(r.pending_charge_micros),
  minutePriceMicros: big(r.minute_price_micros),
  holdId: (r.hold_id ?? null) as string | null,
  holdRenewAtMs: numOrNull(r.hold_renew_at_ms),
  gpuIndexes,
  sshPort: numOrNull(r.ssh_port),
  volumeId: numOrNull(r.volume_id),
  createdAtMs: num(r.created_at_ms),
  updatedAtMs: num(r.updated_at_ms),
  version: num(r.version),
});

const priceOrNull = (v: unknown): bigint | null => (v === null || v === undefined ? null : big(v));

const burstOrderOf = (r: Row): BurstOrderRecord => ({
  id: r.id as string,
  accountId: r.account_id as string,
  dockerImage: r.docker_image as string,
  tiers: [
    { gpuName: r.primary_gpu as string, maxPricePerGpuHourMicros: priceOrNull(r.primary_max_price_micros) },
    ...(JSON.parse(r.extra_gpus as string) as { gpuName: string; maxPricePerGpuHourMicros: string | null }[]).map(
      (t) => ({
        gpuName: t.gpuName,
        maxPricePerGpuHourMicros: priceOrNull(t.maxPricePerGpuHourMicros),
      }),
    ),
  ],
  gpuCount: num(r.gpu_count),
  diskGb: num(r.disk_gb),
  pricingType: r.pricing_type as BurstOrderRecord['pricingType'],
  volumeId: numOrNull(r.volume_id),
  desiredStatus: r.desired_status as BurstOrderRecord['desiredStatus'],
  createdAtMs: num(r.created_at_ms),
  updatedAtMs: num(r.updated_at_ms),
});

const settlementOf = (r: Row): SettlementRecord => ({
  instanceId: r.instance_id as string,
  seq: num(r.seq),
  machineId: r.machine_id as string,
  providerAccountId: r.provider_account_id as string,
  chargedMicros: big(r.charged_micros),
  providerMicros: priceOrNull(r.provider_micros),
  atMs: num(r.at_ms),
});

const SORTS: Record<OfferQuery['sort'], [string, 'asc' | 'desc']> = {
  price: ['price_per_gpu_hour_micros', 'asc'],
  '-price': ['price_per_gpu_hour_micros', 'desc'],
  vram: ['vram_gb', 'asc'],
  '-vram': ['vram_gb', 'desc'],
  reliability: ['reliability_bp', 'asc'],
  '-reliability': ['reliability_bp', 'desc'],
};

/** Thrown inside a transaction to undo it when its GPUs, or its volume, are gone. */
const GPUS_TAKEN = new Error('gpus taken');
const VOLUME_ELSEWHERE = new Error('volume elsewhere');

/** The market-store port over knex, on SQLite and PostgreSQL alike (migration 0011). */
export class SqlMarketStore implements MarketStore {
  private readonly knex: Knex;
  private readonly postgres: boolean;
  readonly volumes: SqlVolumeStore;

  constructor(db: Database) {
    this.knex = db.knex;
    this.postgres = db.kind === 'postgres';
    this.volumes = new SqlVolumeStore(db.knex, this.postgres);
  }

  async addMachine(machine: MachineRecord): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx('machines').insert(machineRow(machine));
      const gpus = Array.from({ length: machine.gpuCount }, (_, idx) => ({
        machine_id: machine.id,
        idx,
        instance_id: null,
      }));
      await trx('machine_gpus').insert(gpus);
    });
  }

  async getMachine(id: string): Promise<MachineRecord | null> {
    const row = (await this.knex('machines').where({ id }).first()) as Row | undefined;
    return row === undefined ? null : machineOf(row);
  }

  async listMachines(providerAccountId: string): Promise<MachineRecord[]> {
    const rows = (await this.knex('machines')
      .where({ provider_account_id: providerAccountId })
      .orderBy([{ column: 'created_at_ms' }, { column: 'id' }])) as Row[];
    return rows.map(machineOf);
  }

  async updateMachine(id: string, patch: Parameters<MarketStore['updateMachine']>[1]): Promise<MachineRecord | null> {
    const row = machineRow(patch);
    if (Object.keys(row).length > 0) await this.knex('machines').where({ id }).update(row);
    return this.getMachine(id);
  }

  async searchOffers(q: OfferQuery): Promise<{ offers: OfferRecord[]; total: number }> {
    const free = this.knex('machine_gpus')
      .select('machine_id')
      .count({ free_gpus: '*' })
      .whereNull('instance_id')
      .groupBy('machine_id')
      .as('f');
    const base = this.knex('machines as m')
      .join(free, 'f.machine_id', 'm.id')
      .where('m.listed', true)
      .where('m.last_heartbeat_ms', '>=', q.heardSinceMs)
      .where((w) => void w.whereNull('m.available_until_ms').orWhere('m.available_until_ms', '>', q.nowMs))
      .where('f.free_gpus', '>=', q.minFreeGpus)
      .whereRaw('f.free_gpus >= m.min_gpus');
    if (q.gpuNames !== undefined) {
      const keys = q.gpuNames.map(gpuNameKey);
      base.whereRaw(`replace(upper(m.gpu_name), '_', '') in (${keys.map(() => '?').join(', ')})`, keys);
    }
    if (q.minVramGb !== undefined) base.where('m.vram_gb', '>=', q.minVramGb);
    if (q.maxPricePerGpuHourMicros !== undefined)
      base.where('m.price_per_gpu_hour_micros', '<=', q.maxPricePerGpuHourMicros.toString());
    if (q.locations !== undefined) base.whereIn('m.location', q.locations);
    if (q.verifiedOnly) base.where('m.verification', 'verified');
    const counted = (await base.clone().count({ n: '*' }).first()) as { n: number | string | bigint };
    const [column, order] = SORTS[q.sort];
    const rows = (await base
      .select('m.*', 'f.free_gpus')
      .orderBy([{ column: `m.${column}`, order }, { column: 'm.id' }])
      .limit(q.limit)
      .offset(q.offset)) as Row[];
    return { offers: rows.map((r) => ({ ...machineOf(r), freeGpus: num(r.free_gpus) })), total: num(counted.n) };
  }

  async freeGpus(machineId: string): Promise<number> {
    const row = (await this.knex('machine_gpus')
      .where({ machine_id: machineId })
      .whereNull('instance_id')
      .count({ n: '*' })
      .first()) as { n: number | string | bigint };
    return num(row.n);
  }

  /** Every SET reads the row as it was, on SQLite and PostgreSQL alike: the rise's columns move into the listing's. */
  async applyPriceRises(nowMs: number): Promise<void> {
    await this.knex('machines')
      .whereNotNull('rise_at_ms')
      .where('rise_at_ms', '<=', nowMs)
      .update({
        price_per_gpu_hour_micros: this.knex.ref('rise_price_micros'),
        day_discount_bp: this.knex.ref('rise_day_discount_bp'),
        week_discount_bp: this.knex.ref('rise_week_discount_bp'),
        month_discount_bp: this.knex.ref('rise_month_discount_bp'),
        ...riseRow(null),
      });
  }

  async recordUptime(machineId: string, minute: number): Promise<void> {
    await this.knex('machine_uptime')
      .insert({ machine_id: machineId, minute })
      .onConflict(['machine_id', 'minute'])
      .ignore();
  }

  async refreshReliability(nowMs: number): Promise<void> {
    const nowMinute = Math.floor(nowMs / MINUTE_MS);
    await this.knex.transaction(async (trx) => {
      await trx('machine_uptime')
        .where('minute', '<', nowMinute - RELIABILITY_WINDOW_MINUTES)
        .delete();
      const heard = new Map(
        ((await trx('machine_uptime').select('machine_id').count({ n: '*' }).groupBy('machine_id')) as Row[]).map(
          (r) => [r.machine_id as string, num(r.n)],
        ),
      );
      for (const m of (await trx('machines').select('id', 'created_at_ms')) as Row[]) {
        const bp = reliabilityBp(
          heard.get(m.id as string) ?? 0,
          nowMinute - Math.floor(num(m.created_at_ms) / MINUTE_MS),
        );
        await trx('machines')
          .where({ id: m.id as string })
          .update({ reliability_bp: bp });
      }
    });
  }

  async place(instance: Omit<InstanceRecord, 'gpuIndexes' | 'version'>): Promise<PlaceOutcome> {
    try {
      return await this.knex.transaction(async (trx) => {
        const taken = await this.takeGpus(trx, instance.machineId, instance.id, instance.gpuCount);
        if (taken === null) return { ok: false, reason: 'gpus_taken' } as const;
        if (
          instance.volumeId !== null &&
          !(await pinVolume(trx, instance.volumeId, instance.machineId, instance.providerAccountId))
        )
          throw VOLUME_ELSEWHERE;
        const record: InstanceRecord = { ...instance, gpuIndexes: taken, version: 1 };
        await trx('instances').insert(instanceRow(record));
        await this.addEvent(trx, record);
        return { ok: true, instance: record } as const;
      });
    } catch (err) {
      if (err === VOLUME_ELSEWHERE) return { ok: false, reason: 'volume_elsewhere' };
      throw err;
    }
  }

  /**
   * Takes `count` free GPUs of a machine for an instance, or none. On PostgreSQL rows another transaction is
   * placing are skipped rather than waited for (`SKIP LOCKED`): a busy GPU counts as taken, as it soon will be.
   */
  private async takeGpus(
    trx: Knex.Transaction,
    machineId: string,
    instanceId: string,
    count: number,
    exactly?: number[],
  ): Promise<number[] | null> {
    const query = trx('machine_gpus')
      .select('idx')
      .where({ machine_id: machineId })
      .whereNull('instance_id')
      .orderBy('idx')
      .limit(count);
    if (exactly !== undefined) query.whereIn('idx', exactly);
    if (this.postgres) query.forUpdate().skipLocked();
    const free = ((await query) as Row[]).map((r) => num(r.idx));
    if (free.length < count) return null;
    const taken = await trx('machine_gpus')
      .where({ machine_id: machineId })
      .whereIn('idx', free)
      .whereNull('instance_id')
      .update({ instance_id: instanceId });
    return taken === count ? free : null;
  }

  async getInstance(id: string): Promise<InstanceRecord | null> {
    return this.readInstance(this.knex, id);
  }

  async instancesAskedToRun(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = (await this.knex('instances')
      .select('id')
      .whereIn('id', [...ids])
      .where({ desired_status: 'running' })) as Row[];
    return new Set(rows.map((r) => r.id as string));
  }

  async pendingCount(accountId: string): Promise<number> {
    const row = (await this.knex('instances')
      .where({ account_id: accountId, status: 'pending', desired_status: 'running' })
      .count({ n: '*' })
      .first()) as { n: number | string | bigint };
    return num(row.n);
  }

  async staleInstances(status: 'pending' | 'offline', beforeMs: number, limit: number): Promise<InstanceRecord[]> {
    const rows = (await this.knex('instances')
      .where({ status, desired_status: 'running' })
      .where('updated_at_ms', '<', beforeMs)
      .orderBy('updated_at_ms')
      .limit(limit)) as Row[];
    return this.withGpus(rows);
  }

  private async readInstance(db: Knex | Knex.Transaction, id: string): Promise<InstanceRecord | null> {
    const row = (await db('instances').where({ id }).first()) as Row | undefined;
    if (row === undefined) return null;
    return instanceOf(row, await this.heldGpus(db, id));
  }

  private async heldGpus(db: Knex | Knex.Transaction, instanceId: string): Promise<number[]> {
    const rows = (await db('machine_gpus').select('idx').where({ instance_id: instanceId }).orderBy('idx')) as Row[];
    return rows.map((r) => num(r.idx));
  }

  private async withGpus(rows: Row[]): Promise<InstanceRecord[]> {
    if (rows.length === 0) return [];
    const held = (await this.knex('machine_gpus')
      .select('instance_id', 'idx')
      .whereIn(
        'instance_id',
        rows.map((r) => r.id as string),
      )
      .orderBy('idx')) as Row[];
    const byInstance = new Map<string, number[]>();
    for (const h of held)
      byInstance.set(h.instance_id as string, [...(byInstance.get(h.instance_id as string) ?? []), num(h.idx)]);
    return rows.map((r) => instanceOf(r, byInstance.get(r.id as string) ?? []));
  }

  async listInstances(accountId: string, limit: number, offset: number): Promise<InstanceRecord[]> {
    const rows = (await this.knex('instances')
      .where({ account_id: accountId })
      .orderBy([
        { column: 'created_at_ms', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)
      .offset(offset)) as Row[];
    return this.withGpus(rows);
  }

  async machineInstances(machineId: string): Promise<InstanceRecord[]> {
    const rows = (await this.knex('instances')
      .where({ machine_id: machineId })
      .whereNot({ status: 'terminated' })
      .orderBy('created_at_ms')) as Row[];
    return this.withGpus(rows);
  }

  async activeInstances(limit: number): Promise<InstanceRecord[]> {
    const rows = (await this.knex('instances')
      .where({ status: 'running' })
      .orWhere('pending_charge_micros', '>', 0)
      .orderBy('updated_at_ms')
      .limit(limit)) as Row[];
    return this.withGpus(rows);
  }

  async runningInstances(accountId: string): Promise<InstanceRecord[]> {
    return this.withGpus((await this.knex('instances').where({ account_id: accountId, status: 'running' })) as Row[]);
  }

  async holdsToRenew(nowMs: number, limit: number): Promise<InstanceRecord[]> {
    const rows = (await this.knex('instances')
      .whereNotNull('hold_id')
      .where('hold_renew_at_ms', '<=', nowMs)
      .orderBy('hold_renew_at_ms')
      .limit(limit)) as Row[];
    return this.withGpus(rows);
  }

  async wantedRunning(accountId: string): Promise<InstanceRecord[]> {
    return this.withGpus(
      (await this.knex('instances').where({ account_id: accountId, desired_status: 'running' })) as Row[],
    );
  }

  async change(id: string, version: number, change: InstanceChange): Promise<ChangeOutcome> {
    try {
      return await this.knex.transaction(async (trx) => {
        const current = await this.readInstance(trx, id);
        if (current === null || current.version !== version) return { ok: false, reason: 'stale' } as const;
        // The versioned update first: on PostgreSQL it locks the row, so the GPUs below are taken for this change only.
        const updated = await trx('instances')
          .where({ id, version })
          .update({ ...instanceRow(change.patch), version: version + 1 });
        if (updated === 0) return { ok: false, reason: 'stale' } as const;
        if (change.gpus === 'acquire') {
          const last = JSON.parse(
            ((await trx('instances').select('last_gpu_indexes').where({ id }).first()) as Row)
              .last_gpu_indexes as string,
          ) as number[];
          if (
            (await this.takeGpus(trx, current.machineId, id, current.gpuCount, last.length > 0 ? last : undefined)) ===
            null
          )
            throw GPUS_TAKEN;
        }
        await writeSettlement(trx, 'rental_settlements', { instance_id: id }, change.settlement);
        if (change.gpus === 'release') {
          await trx('instances')
            .where({ id })
            .update({ last_gpu_indexes: JSON.stringify(current.gpuIndexes) });
          await trx('machine_gpus').where({ instance_id: id }).update({ instance_id: null });
        }
        const next = (await this.readInstance(trx, id))!;
        if (
          next.status !== current.status ||
          next.desiredStatus !== current.desiredStatus ||
          next.statusReason !== current.statusReason
        )
          await this.addEvent(trx, next);
        return { ok: true, instance: next } as const;
      });
    } catch (err) {
      if (err === GPUS_TAKEN) return { ok: false, reason: 'gpus_taken' };
      throw err;
    }
  }

  async settlements(instanceIds: string[], limit: number): Promise<SettlementRecord[]> {
    if (instanceIds.length === 0) return [];
    const rows = (await this.knex('rental_settlements')
      .whereIn('instance_id', instanceIds)
      .orderBy([
        { column: 'at_ms', order: 'desc' },
        { column: 'seq', order: 'desc' },
      ])
      .limit(limit)) as Row[];
    return rows.map(settlementOf);
  }

  providerEarnings(providerAccountId: string, fromMs: number, toMs: number): Promise<EarningsGroup[]> {
    return earningsByDayAndMachine(this.knex, providerAccountId, fromMs, toMs);
  }

  providerEarnedMicros(providerAccountId: string, beforeMs: number): Promise<bigint> {
    return earnedBefore(this.knex, providerAccountId, beforeMs);
  }

  async unplace(id: string): Promise<void> {
    await this.knex.transaction(async (trx) => {
      await trx('machine_gpus').where({ instance_id: id }).update({ instance_id: null });
      await trx('instance_events').where({ instance_id: id }).delete();
      await trx('instances').where({ id }).delete();
    });
  }

  async history(id: string): Promise<InstanceEvent[]> {
    const rows = (await this.knex('instance_events').where({ instance_id: id }).orderBy('id')) as Row[];
    return rows.map((r) => ({
      atMs: num(r.at_ms),
      status: r.status as InstanceEvent['status'],
      desiredStatus: r.desired_status as InstanceEvent['desiredStatus'],
      reason: (r.reason ?? null) as InstanceEvent['reason'],
    }));
  }

  async addBurstOrder(order: BurstOrderRecord): Promise<void> {
    const [primary, ...extras] = order.tiers;
    await this.knex('burst_orders').insert({
      id: order.id,
      account_id: order.accountId,
      docker_image: order.dockerImage,
      primary_gpu: primary!.gpuName,
      primary_max_price_micros: primary!.maxPricePerGpuHourMicros?.toString() ?? null,
      gpu_count: order.gpuCount,
      extra_gpus: JSON.stringify(
        extras.map((t) => ({
          gpuName: t.gpuName,
          maxPricePerGpuHourMicros: t.maxPricePerGpuHourMicros?.toString() ?? null,
        })),
      ),
      disk_gb: order.diskGb,
      pricing_type: order.pricingType,
      volume_id: order.volumeId,
      desired_status: order.desiredStatus,
      created_at_ms: order.createdAtMs,
      updated_at_ms: order.updatedAtMs,
    });
  }

  async getBurstOrder(id: string): Promise<BurstOrderRecord | null> {
    const row = (await this.knex('burst_orders').where({ id }).first()) as Row | undefined;
    return row === undefined ? null : burstOrderOf(row);
  }

  async listBurstOrders(accountId: string, limit: number, offset: number): Promise<BurstOrderRecord[]> {
    const rows = (await this.knex('burst_orders')
      .where({ account_id: accountId })
      .orderBy([
        { column: 'created_at_ms', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)
      .offset(offset)) as Row[];
    return rows.map(burstOrderOf);
  }

  async updateBurstOrder(id: string, patch: Pick<BurstOrderRecord, 'desiredStatus' | 'updatedAtMs'>): Promise<void> {
    await this.knex('burst_orders')
      .where({ id })
      .update({ desired_status: patch.desiredStatus, updated_at_ms: patch.updatedAtMs });
  }

  async orderInstances(orderId: string): Promise<InstanceRecord[]> {
    const rows = (await this.knex('instances')
      .where({ burst_order_id: orderId })
      .orderBy([{ column: 'created_at_ms' }, { column: 'id' }])) as Row[];
    return this.withGpus(rows);
  }

  async removeBurstOrder(id: string): Promise<void> {
    await this.knex('burst_orders').where({ id }).delete();
  }

  private async addEvent(trx: Knex.Transaction, i: InstanceRecord): Promise<void> {
    await trx('instance_events').insert({
      instance_id: i.id,
      at_ms: i.updatedAtMs,
      status: i.status,
      desired_status: i.desiredStatus,
      reason: i.statusReason,
    });
  }
}

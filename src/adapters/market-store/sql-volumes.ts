import type { Knex } from 'knex';
import type { RemoveVolumeOutcome, VolumeChange, VolumeRecord, VolumeStore } from './index.js';
import { big, num, numOrNull, type Row, rowOf } from './sql-rows.js';
import { writeSettlement } from './sql-settlements.js';

/** The columns a volume's settlement changes. */
const CHANGE_COLUMNS: Record<keyof VolumeChange['patch'], string> = {
  settledUntilMs: 'settled_until_ms',
  chargedMicros: 'charged_micros',
  settleSeq: 'settle_seq',
  pendingChargeMicros: 'pending_charge_micros',
};

const volumeOf = (r: Row): VolumeRecord => ({
  id: num(r.id),
  accountId: r.account_id as string,
  name: r.name as string,
  sizeGb: num(r.size_gb),
  priceMicrosPerGbMonth: big(r.price_micros_per_gb_month),
  machineId: (r.machine_id ?? null) as string | null,
  providerAccountId: (r.provider_account_id ?? null) as string | null,
  createdAtMs: num(r.created_at_ms),
  deletedAtMs: numOrNull(r.deleted_at_ms),
  settledUntilMs: num(r.settled_until_ms),
  chargedMicros: big(r.charged_micros),
  settleSeq: num(r.settle_seq),
  pendingChargeMicros: big(r.pending_charge_micros),
  version: num(r.version),
});

/**
 * Pins a volume to the machine an instance is placed on, inside the placement's transaction: false when the volume
 * is deleted or on another machine. The update takes the volume's row lock (PostgreSQL), so a concurrent `remove`
 * either sees the instance or has already marked the volume deleted.
 */
export async function pinVolume(
  trx: Knex.Transaction,
  volumeId: number,
  machineId: string,
  providerAccountId: string,
): Promise<boolean> {
  const pinned = await trx('volumes')
    .where({ id: volumeId })
    .whereNull('deleted_at_ms')
    .where((w) => void w.whereNull('machine_id').orWhere('machine_id', machineId))
    // Pinning changes who a settlement pays: a settlement recorded meanwhile must lose its compare-and-set.
    .update({
      machine_id: machineId,
      provider_account_id: providerAccountId,
      version: trx.raw('CASE WHEN machine_id IS NULL THEN version + 1 ELSE version END'),
    });
  return pinned === 1;
}

/** The volume store over knex, on SQLite and PostgreSQL alike (migration 0019). */
export class SqlVolumeStore implements VolumeStore {
  constructor(
    private readonly knex: Knex,
    private readonly postgres: boolean,
  ) {}

  async create(v: Parameters<VolumeStore['create']>[0]): Promise<VolumeRecord> {
    const [row] = (await this.knex('volumes')
      .insert({
        account_id: v.accountId,
        name: v.name,
        size_gb: v.sizeGb,
        price_micros_per_gb_month: v.priceMicrosPerGbMonth.toString(),
        created_at_ms: v.createdAtMs,
        settled_until_ms: v.createdAtMs,
        charged_micros: '0',
        settle_seq: 0,
        pending_charge_micros: '0',
        version: 1,
      })
      .returning('*')) as Row[];
    return volumeOf(row!);
  }

  async get(id: number): Promise<VolumeRecord | null> {
    return this.read(this.knex, id);
  }

  private async read(db: Knex | Knex.Transaction, id: number): Promise<VolumeRecord | null> {
    const row = (await db('volumes').where({ id }).first()) as Row | undefined;
    return row === undefined ? null : volumeOf(row);
  }

  async list(accountId: string, limit: number, offset: number): Promise<VolumeRecord[]> {
    const rows = (await this.knex('volumes')
      .where({ account_id: accountId })
      .orderBy([
        { column: 'created_at_ms', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit)
      .offset(offset)) as Row[];
    return rows.map(volumeOf);
  }

  async onMachine(machineId: string): Promise<VolumeRecord[]> {
    return (
      (await this.knex('volumes').where({ machine_id: machineId }).whereNull('deleted_at_ms').orderBy('id')) as Row[]
    ).map(volumeOf);
  }

  async billable(settledBeforeMs: number, limit: number): Promise<VolumeRecord[]> {
    const rows = (await this.knex('volumes')
      .where((w) => void w.whereNull('deleted_at_ms').where('settled_until_ms', '<', settledBeforeMs))
      .orWhere('pending_charge_micros', '>', 0)
      .orWhereRaw('settled_until_ms < deleted_at_ms')
      .orderBy([{ column: 'settled_until_ms' }, { column: 'id' }])
      .limit(limit)) as Row[];
    return rows.map(volumeOf);
  }

  async change(id: number, version: number, change: VolumeChange): Promise<VolumeRecord | null> {
    return this.knex.transaction(async (trx) => {
      const patch = { ...rowOf(change.patch, CHANGE_COLUMNS), version: version + 1 };
      if ((await trx('volumes').where({ id, version }).update(patch)) === 0) return null;
      await writeSettlement(trx, 'volume_settlements', { volume_id: id }, change.settlement);
      return this.read(trx, id);
    });
  }

  async remove(id: number, atMs: number): Promise<RemoveVolumeOutcome> {
    return this.knex.transaction(async (trx) => {
      // The row lock first (PostgreSQL; SQLite has one writer): a placement pinning it is committed or waits.
      const locked = trx('volumes').where({ id });
      if (this.postgres) locked.forUpdate();
      const row = (await locked.first()) as Row | undefined;
      if (row === undefined) return { ok: false, reason: 'not_found' } as const;
      const volume = volumeOf(row);
      if (volume.deletedAtMs !== null) return { ok: true, volume } as const;
      const attached = (await trx('instances')
        .where({ volume_id: id })
        .whereNot({ desired_status: 'terminated' })
        .count({ n: '*' })
        .first()) as { n: number | string | bigint };
      if (num(attached.n) > 0) return { ok: false, reason: 'in_use' } as const;
      await trx('volumes')
        .where({ id })
        .update({ deleted_at_ms: atMs, version: volume.version + 1 });
      return { ok: true, volume: (await this.read(trx, id))! } as const;
    });
  }
}

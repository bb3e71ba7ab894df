import type { RemoveVolumeOutcome, VolumeChange, VolumeRecord, VolumeSettlementRecord, VolumeStore } from './index.js';

/** The in-memory twin of the volume store; `isAttached` answers whether an instance not terminated has the volume. */
export class MemoryVolumeStore implements VolumeStore {
  private readonly volumes = new Map<number, VolumeRecord>();
  readonly settled: VolumeSettlementRecord[] = [];
  private nextId = 1;

  constructor(private readonly isAttached: (volumeId: number) => boolean) {}

  async create(v: Parameters<VolumeStore['create']>[0]): Promise<VolumeRecord> {
    const volume: VolumeRecord = {
      ...v,
      id: this.nextId++,
      machineId: null,
      providerAccountId: null,
      deletedAtMs: null,
      settledUntilMs: v.createdAtMs,
      chargedMicros: 0n,
      settleSeq: 0,
      pendingChargeMicros: 0n,
      version: 1,
    };
    this.volumes.set(volume.id, volume);
    return { ...volume };
  }

  async get(id: number): Promise<VolumeRecord | null> {
    const v = this.volumes.get(id);
    return v === undefined ? null : { ...v };
  }

  async list(accountId: string, limit: number, offset: number): Promise<VolumeRecord[]> {
    return [...this.volumes.values()]
      .filter((v) => v.accountId === accountId)
      .sort((a, b) => b.createdAtMs - a.createdAtMs || b.id - a.id)
      .slice(offset, offset + limit)
      .map((v) => ({ ...v }));
  }

  async onMachine(machineId: string): Promise<VolumeRecord[]> {
    return [...this.volumes.values()]
      .filter((v) => v.machineId === machineId && v.deletedAtMs === null)
      .map((v) => ({ ...v }));
  }

  async billable(settledBeforeMs: number, limit: number): Promise<VolumeRecord[]> {
    return [...this.volumes.values()]
      .filter(
        (v) =>
          (v.deletedAtMs === null && v.settledUntilMs < settledBeforeMs) ||
          v.pendingChargeMicros > 0n ||
          (v.deletedAtMs !== null && v.settledUntilMs < v.deletedAtMs),
      )
      .sort((a, b) => a.settledUntilMs - b.settledUntilMs || a.id - b.id)
      .slice(0, limit)
      .map((v) => ({ ...v }));
  }

  /** What a placement does in its transaction (see `pinVolume`): false when the volume is gone or elsewhere. */
  pin(volumeId: number, machineId: string, providerAccountId: string): boolean {
    const v = this.volumes.get(volumeId);
    if (v === undefined || v.deletedAtMs !== null || (v.machineId !== null && v.machineId !== machineId)) return false;
    if (v.machineId === null)
      this.volumes.set(volumeId, { ...v, machineId, providerAccountId, version: v.version + 1 });
    return true;
  }

  async change(id: number, version: number, change: VolumeChange): Promise<VolumeRecord | null> {
    const current = this.volumes.get(id);
    if (current === undefined || current.version !== version) return null;
    const s = change.settlement;
    if (s !== undefined && 'recorded' in s) this.settled.push({ ...s.recorded });
    if (s !== undefined && 'posted' in s) {
      const row = this.settled.find((r) => r.volumeId === id && r.seq === s.posted.seq);
      if (row !== undefined) row.providerMicros = s.posted.providerMicros;
    }
    const next = { ...current, ...change.patch, version: version + 1 };
    this.volumes.set(id, next);
    return { ...next };
  }

  async remove(id: number, atMs: number): Promise<RemoveVolumeOutcome> {
    const current = this.volumes.get(id);
    if (current === undefined) return { ok: false, reason: 'not_found' };
    if (current.deletedAtMs !== null) return { ok: true, volume: { ...current } };
    if (this.isAttached(id)) return { ok: false, reason: 'in_use' };
    const next = { ...current, deletedAtMs: atMs, version: current.version + 1 };
    this.volumes.set(id, next);
    return { ok: true, volume: { ...next } };
  }
}

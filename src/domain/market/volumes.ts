/**
 * Persistent volumes (SPEC 1.8: the one balance pays for volumes too; 2.10 `volume_id`). A volume is a disk on one
 * provider's machine, as Vast's local volumes and RunPod's volume disks are: the first rental that attaches it pins it
 * to that rental's machine, and every later rental with it must be on that machine, where the agent mounts it at
 * `/workspace`. Several rentals on that machine may mount it at once; it cannot be deleted while a rental that is not
 * deleted has it. It is billed per millisecond from creation to deletion at the price per GB-month locked at creation,
 * settled by the sweeper and on every read, the provider paid their share once it is on their machine.
 */
import type { Ledger, LotSpec } from '../../adapters/ledger/index.js';
import type { MarketStore, VolumeRecord } from '../../adapters/market-store/index.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import { assertNoDebt } from '../billing/debt-guard.js';
import { microsToUsd } from '../billing/money.js';
import type { Principal } from '../keys/authenticator.js';
import { insertCovered } from './balance-cover.js';
import { UNIT_MS } from './plans.js';
import { postCharge, settleRecorded } from './settlements.js';

export interface VolumeSettings {
  priceMicrosPerGbMonth: bigint;
  /** The platform's share of each charge, in basis points (the rest is the provider's). */
  feeBp: number;
}

export interface VolumeDeps {
  store: MarketStore;
  ledger: Ledger;
  now: () => number;
  settings: VolumeSettings;
  /** The lot a provider's earnings are credited as. */
  earningsLot: () => LotSpec;
  onUnexpected: (err: unknown) => void;
}

const MONTH_MS = BigInt(UNIT_MS.month);
/** Creating a volume needs a day of storage of it and of every other volume of the account available. */
const RUNWAY_MS = UNIT_MS.day;
const SWEEP_BATCH = 500;
/**
 * The sweeper settles a volume at most this often (reads and deletes settle at once): storage costs cents a day, and
 * a settlement row every sweep for every volume would be churn for nothing.
 */
const SETTLE_EVERY_MS = UNIT_MS.hour;
/** A read settles a volume once this much of it is unsettled. */
const READ_SETTLES_AFTER_MS = UNIT_MS.minute;

/** The Docker volume an agent keeps a persistent volume in (docs/marketplace.md "Providers"). */
export const dockerVolumeName = (id: number): string => `cgw-vol-${id}`;

/** What a volume of `sizeGb` costs for `ms` at `priceMicrosPerGbMonth`, rounded down to the micro-dollar. */
export function storageCost(sizeGb: number, priceMicrosPerGbMonth: bigint, ms: number): bigint {
  return (BigInt(sizeGb) * priceMicrosPerGbMonth * BigInt(Math.max(0, Math.floor(ms)))) / MONTH_MS;
}

export class Volumes {
  constructor(private readonly deps: VolumeDeps) {}

  /**
   * A new volume, on no machine yet: 402 unless the balance pays a day of it and of every other volume of the
   * account (one balance cannot be shown again and again for volume after volume): the new day is held while the
   * volume is created (./balance-cover.ts), so parallel creations never share one balance.
   */
  async create(principal: Principal, input: { name: string; sizeGb: number }): Promise<VolumeRecord> {
    assertNoDebt(principal.account);
    const { accountId } = principal;
    const price = this.deps.settings.priceMicrosPerGbMonth;
    const rule = {
      accountId,
      ownMicros: storageCost(input.sizeGb, price, RUNWAY_MS),
      existingMicros: async () =>
        (await this.existing(accountId)).reduce(
          (sum, v) => sum + storageCost(v.sizeGb, v.priceMicrosPerGbMonth, RUNWAY_MS),
          0n,
        ),
      refuse: (need: bigint, available: bigint) =>
        new ApiError(
          'insufficient_balance',
          `A ${input.sizeGb} GB volume needs a day of all the account's volumes ($${microsToUsd(need)}) available; the balance has $${microsToUsd(available)}`,
        ),
    };
    return insertCovered(this.deps.ledger, this.deps.now, rule, () =>
      this.deps.store.volumes.create({
        accountId,
        name: input.name,
        sizeGb: input.sizeGb,
        priceMicrosPerGbMonth: price,
        createdAtMs: this.deps.now(),
      }),
    );
  }

  /**
   * One of the caller's volumes, settled up to now (or its deletion) once a minute of it is unsettled: reads are free
   * to repeat, settlements are not (issue 23 item 10); `settled_until` says how far it was charged.
   */
  async get(principal: Principal, id: number): Promise<VolumeRecord> {
    const volume = await this.owned(principal, id);
    const now = this.deps.now();
    const due =
      Math.min(now, volume.deletedAtMs ?? now) - volume.settledUntilMs >= READ_SETTLES_AFTER_MS ||
      volume.pendingChargeMicros !== 0n;
    return due ? this.settle(volume, now) : volume;
  }

  async list(principal: Principal, limit: number, offset: number): Promise<VolumeRecord[]> {
    return this.deps.store.volumes.list(principal.accountId, limit, offset);
  }

  /** Deletes a volume (its agent removes the disk) and charges it up to now: 409 `volume_in_use` while a rental has it. */
  async remove(principal: Principal, id: number): Promise<VolumeRecord> {
    await this.owned(principal, id);
    const removed = await this.deps.store.volumes.remove(id, this.deps.now());
    if (!removed.ok && removed.reason === 'in_use')
      throw new ApiError(
        'volume_in_use',
        `Volume ${id} is attached to a rental that is not deleted; delete the rental first`,
      );
    if (!removed.ok) throw notFound(id);
    return this.settle(removed.volume, this.deps.now());
  }

  /**
   * Settles a volume on no machine yet up to now, just before a placement pins it: what it cost until then is not the
   * provider's (it was on no disk of theirs).
   */
  async settleBeforePin(id: number): Promise<void> {
    const volume = await this.deps.store.volumes.get(id);
    if (volume !== null && volume.machineId === null) await this.settle(volume, this.deps.now());
  }

  /**
   * Checks that a rental on `machineId` may attach the caller's volume (before anything is taken): 404 when it is
   * not theirs or deleted, 400 naming `volume_id` when it is on another machine.
   */
  async checkAttachable(principal: Principal, id: number, machineId: string | null): Promise<VolumeRecord> {
    const volume = await this.owned(principal, id);
    if (volume.deletedAtMs !== null) throw notFound(id);
    if (machineId !== null && volume.machineId !== null && volume.machineId !== machineId) {
      throw invalidField(
        ['body', 'volume_id'],
        `volume ${id} is on machine ${volume.machineId}: rent that machine's offer, or use another volume`,
      );
    }
    return volume;
  }

  /** Settles every volume of an account up to now (a top-up touches them, SPEC 4.5). */
  async settleAccount(accountId: string): Promise<void> {
    const now = this.deps.now();
    for (const volume of await this.existing(accountId)) await this.settle(volume, now);
  }

  /** Every volume of the account that is not deleted. */
  private async existing(accountId: string): Promise<VolumeRecord[]> {
    const found: VolumeRecord[] = [];
    for (let offset = 0; ; offset += SWEEP_BATCH) {
      const page = await this.deps.store.volumes.list(accountId, SWEEP_BATCH, offset);
      found.push(...page.filter((v) => v.deletedAtMs === null));
      if (page.length < SWEEP_BATCH) return found;
    }
  }

  /** The sweeper: charges every volume not charged for an hour up to now (or its deletion). */
  async sweep(): Promise<void> {
    const now = this.deps.now();
    for (const volume of await this.deps.store.volumes.billable(now - SETTLE_EVERY_MS, SWEEP_BATCH)) {
      try {
        await this.settle(volume, now);
      } catch (err) {
        this.deps.onUnexpected(err);
      }
    }
  }

  /** Charges what the volume owes up to `nowMs` (at most its deletion) beyond what it was charged. */
  private settle(current: VolumeRecord, nowMs: number): Promise<VolumeRecord> {
    const { store, ledger, settings } = this.deps;
    const until = (v: VolumeRecord) => Math.max(v.settledUntilMs, Math.min(nowMs, v.deletedAtMs ?? nowMs));
    return settleRecorded(current, {
      what: `volume ${current.id}`,
      owed: (v) => storageCost(v.sizeGb, v.priceMicrosPerGbMonth, until(v) - v.createdAtMs),
      record: (v, seq, owed, charge) =>
        store.volumes.change(v.id, v.version, {
          patch: { settleSeq: seq, settledUntilMs: until(v), chargedMicros: owed, pendingChargeMicros: charge },
          settlement: {
            recorded: {
              volumeId: v.id,
              seq,
              machineId: v.machineId,
              providerAccountId: v.providerAccountId,
              chargedMicros: charge,
              providerMicros: null,
              atMs: until(v),
            },
          },
        }),
      post: (v) =>
        postCharge(ledger, {
          id: `volume:${v.id}:${v.settleSeq}`,
          accountId: v.accountId,
          holdId: null,
          amountMicros: v.pendingChargeMicros,
          chargedBeforeMicros: v.chargedMicros - v.pendingChargeMicros,
          nowMs,
          memo: `Volume ${v.id} (${v.sizeGb} GB)`,
          provider:
            v.providerAccountId === null
              ? null
              : { accountId: v.providerAccountId, feeBp: settings.feeBp, lot: this.deps.earningsLot() },
        }),
      clear: (v, providerMicros) =>
        store.volumes.change(v.id, v.version, {
          patch: { pendingChargeMicros: 0n },
          settlement: { posted: { seq: v.settleSeq, providerMicros } },
        }),
      reread: async (v) => (await store.volumes.get(v.id)) ?? v,
    });
  }

  private async owned(principal: Principal, id: number): Promise<VolumeRecord> {
    const volume = await this.deps.store.volumes.get(id);
    if (volume === null || volume.accountId !== principal.accountId) throw notFound(id);
    return volume;
  }
}

const notFound = (id: number) => new ApiError('volume_not_found', `No volume ${id}`, { notFound: true });

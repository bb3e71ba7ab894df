/**
 * The market-store port: providers' machines with their GPUs and listings, and the rentals (instances) placed on
 * them (SPEC 1.1-1.6, 3.3; DESIGN.md 3 "Rentals"). A machine's GPUs are rows of their own, each free or held by one
 * instance: placing a rental takes free rows in one transaction (`FOR UPDATE SKIP LOCKED` on PostgreSQL, the single
 * writer on SQLite), so two renters never hold one GPU. Instances change by compare-and-set on their version, and
 * every status change is kept in the instance's history.
 */

export type PricingType = 'minute' | 'hour' | 'day' | 'week' | 'month';
export type Verification = 'unverified' | 'verified' | 'deverified';

/** Commitment discounts in basis points of the hourly price (SPEC 1.3: longer terms 20-40 % cheaper). */
export interface Discounts {
  day: number;
  week: number;
  month: number;
}

/** A listing change that raises a plan's price, announced: new rentals pay it from `atMs` on (docs/marketplace.md). */
export interface PriceRise {
  pricePerGpuHourMicros: bigint;
  discountsBp: Discounts;
  atMs: number;
}

export interface MachineRecord {
  id: string;
  providerAccountId: string;
  name: string;
  gpuName: string;
  gpuCount: number;
  vramGb: number;
  cpuCores: number;
  ramGb: number;
  diskGb: number;
  /** ISO 3166-1 alpha-2 country code. */
  location: string;
  /** What a new rental is charged per GPU-hour now (with `discountsBp`): what offers show and placements take. */
  pricePerGpuHourMicros: bigint;
  /** The fewest GPUs one rental may take. */
  minGpus: number;
  discountsBp: Discounts;
  /** The machine is offered until then (null: open-ended). */
  availableUntilMs: number | null;
  listed: boolean;
  verification: Verification;
  lastHeartbeatMs: number | null;
  /** 30-day rolling uptime in basis points (10,000: always heard), refreshed from the heartbeats. */
  reliabilityBp: number;
  /** The rise announced and not yet applied (null: none); `applyPriceRises` makes it the listing once due. */
  priceRise: PriceRise | null;
  createdAtMs: number;
}

/** A machine as the marketplace shows it: with the GPUs no rental holds. */
export interface OfferRecord extends MachineRecord {
  freeGpus: number;
}

export type OfferSort = 'price' | '-price' | 'vram' | '-vram' | 'reliability' | '-reliability';

export interface OfferQuery {
  /** Matched by gpuNameKey: case and separators do not matter. */
  gpuNames?: string[];
  minVramGb?: number;
  maxPricePerGpuHourMicros?: bigint;
  locations?: string[];
  verifiedOnly: boolean;
  /** Machines heard from at or after this time (the others are offline). */
  heardSinceMs: number;
  nowMs: number;
  minFreeGpus: number;
  sort: OfferSort;
  limit: number;
  offset: number;
}

export type InstanceStatus = 'pending' | 'running' | 'offline' | 'stopped' | 'terminated';
export type DesiredStatus = 'running' | 'stopped' | 'terminated';
export type StatusReason =
  | 'user'
  | 'insufficient_balance'
  | 'host_offline'
  | 'plan_expired'
  | 'error'
  | 'start_timeout';

export interface InstanceRecord {
  id: string;
  accountId: string;
  /** The burst order that placed it (SPEC 1.7), or null for a rental of one offer. */
  burstOrderId: string | null;
  machineId: string;
  providerAccountId: string;
  gpuName: string;
  gpuCount: number;
  dockerImage: string;
  diskGb: number;
  pricingType: PricingType;
  /** Price of one unit of the plan (a minute, hour, day, week or month) for one GPU, locked at creation. */
  unitPriceMicros: bigint;
  /** Day, week and month plans: the term one unit covers; null for metered plans. */
  termMs: number | null;
  desiredStatus: DesiredStatus;
  status: InstanceStatus;
  statusReason: StatusReason | null;
  /** When the current running stretch began (null unless running). */
  runningSinceMs: number | null;
  /** Running time of the stretches already closed. */
  runningMs: number;
  /** Running time already charged for, and what it cost in all. */
  settledRunningMs: number;
  chargedMicros: bigint;
  /** Settlements made so far: the next one's transfer is `rental:<id>:<settleSeq + 1>`. */
  settleSeq: number;
  /** A settlement recorded but not yet posted (its amount), replayed until the ledger has it. */
  pendingChargeMicros: bigint;
  /** One GPU's minute price, locked at creation: what a term plan stopped or deleted early is re-priced at. */
  minutePriceMicros: bigint;
  /** Term plans: the hold that pays for the rest of the term while the instance runs. */
  holdId: string | null;
  /** When the sweeper next checks that hold (renews it, or replaces one gone); null without a hold. */
  holdRenewAtMs: number | null;
  /** GPU indexes on the machine this instance holds (none once stopped or terminated). */
  gpuIndexes: number[];
  sshPort: number | null;
  /** The persistent volume mounted in its container, on the same machine (null: none). */
  volumeId: number | null;
  createdAtMs: number;
  updatedAtMs: number;
  version: number;
}

/** A fallback GPU type of a burst order with its price cap (SPEC 2.10 `extra_gpus`). */
export interface GpuTier {
  gpuName: string;
  /** null: no cap (the primary type unless the order names one). */
  maxPricePerGpuHourMicros: bigint | null;
}

export interface BurstOrderRecord {
  id: string;
  accountId: string;
  dockerImage: string;
  /** The primary type first, then each fallback in the order given. */
  tiers: GpuTier[];
  gpuCount: number;
  diskGb: number;
  pricingType: PricingType;
  /** The volume every rental of the order mounts (SPEC 2.10 `volume_id`), or null. */
  volumeId: number | null;
  desiredStatus: DesiredStatus;
  createdAtMs: number;
  updatedAtMs: number;
}

export interface InstanceEvent {
  atMs: number;
  status: InstanceStatus;
  desiredStatus: DesiredStatus;
  reason: StatusReason | null;
}

/** A provider's posted settlements (rentals and volumes alike) of one machine on one UTC day, summed. */
export interface EarningsGroup {
  dayStartMs: number;
  machineId: string;
  chargedMicros: bigint;
  providerMicros: bigint;
  settlements: number;
}

/** One settlement of a rental: what it charged, and the provider's share once the ledger posted it. */
export interface SettlementRecord extends SettlementFields {
  instanceId: string;
  machineId: string;
  providerAccountId: string;
}

/** What a compare-and-set writes, with what it does to the instance's GPUs and settlements in the same transaction. */
export interface InstanceChange {
  patch: Partial<Omit<InstanceRecord, 'id' | 'accountId' | 'machineId' | 'version' | 'gpuIndexes'>>;
  settlement?: SettlementWrite<SettlementRecord>;
  /**
   * `acquire`: take again the GPUs the instance held before its release (its container was made with them), all
   * or none; `release`: free the ones held, remembering them.
   */
  gpus?: 'acquire' | 'release';
}

/** `volume_elsewhere`: the instance's volume is gone, or pinned to another machine (by a concurrent placement). */
export type PlaceOutcome =
  | { ok: true; instance: InstanceRecord }
  | { ok: false; reason: 'gpus_taken' | 'volume_elsewhere' };
export type ChangeOutcome = { ok: true; instance: InstanceRecord } | { ok: false; reason: 'stale' | 'gpus_taken' };

export interface MarketStore {
  /** Persistent volumes; `place` pins an instance's volume to its machine in the placement's own transaction. */
  readonly volumes: VolumeStore;
  /** A machine and its GPU rows (all free). */
  addMachine(machine: MachineRecord): Promise<void>;
  getMachine(id: string): Promise<MachineRecord | null>;
  listMachines(providerAccountId: string): Promise<MachineRecord[]>;
  updateMachine(
    id: string,
    patch: Partial<Omit<MachineRecord, 'id' | 'providerAccountId' | 'gpuCount' | 'createdAtMs'>>,
  ): Promise<MachineRecord | null>;
  /** Listed, online, available machines with at least `minFreeGpus` free GPUs matching the query, cheapest first. */
  searchOffers(query: OfferQuery): Promise<{ offers: OfferRecord[]; total: number }>;
  freeGpus(machineId: string): Promise<number>;
  /** Every announced price rise due by `nowMs` becomes its machine's listing price and discounts (one statement). */
  applyPriceRises(nowMs: number): Promise<void>;
  /** The agent was heard in this minute (epoch minutes; repeating one is a no-op). */
  recordUptime(machineId: string, minute: number): Promise<void>;
  /**
   * Recomputes every machine's reliability at `nowMs`: (minutes heard + a 10-minute grace) / minutes in the window,
   * the window being the last 30 days or the machine's life if shorter, at most 100 % (RunPod's hosting formula).
   */
  refreshReliability(nowMs: number): Promise<void>;

  /**
   * Inserts the instance holding `gpuCount` free GPUs of its machine, or nothing when fewer are free. An instance
   * with a volume pins the volume to its machine in the same transaction, or is not placed when the volume is
   * deleted or on another machine.
   */
  place(instance: Omit<InstanceRecord, 'gpuIndexes' | 'version'>): Promise<PlaceOutcome>;
  getInstance(id: string): Promise<InstanceRecord | null>;
  /** Those of `ids` whose instance is asked to run (pending, running or offline), in one read: the SSH proxy's ports are theirs only. */
  instancesAskedToRun(ids: readonly string[]): Promise<Set<string>>;
  /** How many of an account's rentals are pending: asked to run, not yet run by their agent. */
  pendingCount(accountId: string): Promise<number>;
  /**
   * Rentals asked to run that have been `pending` or `offline` (as asked) since before `beforeMs`, oldest first: their
   * `updatedAtMs` is when they entered that status (nothing else changes it while nothing runs).
   */
  staleInstances(status: 'pending' | 'offline', beforeMs: number, limit: number): Promise<InstanceRecord[]>;
  listInstances(accountId: string, limit: number, offset: number): Promise<InstanceRecord[]>;
  /** Instances of a machine that are not terminated (what its agent must run or stop). */
  machineInstances(machineId: string): Promise<InstanceRecord[]>;
  /** Instances the sweeper must look at: running, or with a settlement left to post (least recently changed first). */
  activeInstances(limit: number): Promise<InstanceRecord[]>;
  /** An account's running instances (what its balance must keep running). */
  runningInstances(accountId: string): Promise<InstanceRecord[]>;
  /** Instances whose hold is due for its check at `nowMs`, the most overdue first. */
  holdsToRenew(nowMs: number, limit: number): Promise<InstanceRecord[]>;
  /** An account's instances its renter wants running (pending, running or offline): what a new start must cover too. */
  wantedRunning(accountId: string): Promise<InstanceRecord[]>;
  /** Compare-and-set on `version`; a status change is added to the history. */
  change(id: string, version: number, change: InstanceChange): Promise<ChangeOutcome>;
  /** Removes an instance placed moments ago whose payment failed, freeing its GPUs. */
  unplace(id: string): Promise<void>;
  history(id: string): Promise<InstanceEvent[]>;

  /** Settlements of these instances, newest first, at most `limit`. */
  settlements(instanceIds: string[], limit: number): Promise<SettlementRecord[]>;
  /**
   * A provider's posted settlements of rentals and volumes made in [fromMs, toMs), summed by UTC day and machine in
   * the store (a machine rented for a year has some two million), in no particular order.
   */
  providerEarnings(providerAccountId: string, fromMs: number, toMs: number): Promise<EarningsGroup[]>;
  /** What a provider's posted settlements made before `beforeMs` paid it. */
  providerEarnedMicros(providerAccountId: string, beforeMs: number): Promise<bigint>;

  addBurstOrder(order: BurstOrderRecord): Promise<void>;
  getBurstOrder(id: string): Promise<BurstOrderRecord | null>;
  listBurstOrders(accountId: string, limit: number, offset: number): Promise<BurstOrderRecord[]>;
  updateBurstOrder(id: string, patch: Pick<BurstOrderRecord, 'desiredStatus' | 'updatedAtMs'>): Promise<void>;
  /** The rentals an order placed, oldest first. */
  orderInstances(orderId: string): Promise<InstanceRecord[]>;
  /** Removes an order whose placement was undone (with its rentals already unplaced). */
  removeBurstOrder(id: string): Promise<void>;
}

/**
 * A persistent volume (SPEC 1.8, 2.10 `volume_id`): a disk on one machine, mounted at `/workspace` by the rentals
 * that attach it. Unpinned until the first rental that attaches it is placed. Billed per millisecond from creation to
 * deletion at the price locked at creation; `settledUntilMs` is how far it was charged.
 */
export interface VolumeRecord {
  id: number;
  accountId: string;
  name: string;
  sizeGb: number;
  priceMicrosPerGbMonth: bigint;
  machineId: string | null;
  providerAccountId: string | null;
  createdAtMs: number;
  deletedAtMs: number | null;
  settledUntilMs: number;
  chargedMicros: bigint;
  /** Settlements made so far: the next one's transfer is `volume:<id>:<settleSeq + 1>`. */
  settleSeq: number;
  /** A settlement recorded but not yet posted (its amount), replayed until the ledger has it. */
  pendingChargeMicros: bigint;
  version: number;
}

/** What a settlement of anything (a rental, a volume) keeps: null machine and provider for a volume on no machine. */
export interface SettlementFields {
  seq: number;
  machineId: string | null;
  providerAccountId: string | null;
  chargedMicros: bigint;
  providerMicros: bigint | null;
  atMs: number;
}

/** A settlement recorded (before it is posted), or the provider's share of one posted. */
export type SettlementWrite<R extends SettlementFields = SettlementFields> =
  | { recorded: R }
  | { posted: { seq: number; providerMicros: bigint } };

export interface VolumeSettlementRecord extends SettlementFields {
  volumeId: number;
}

export interface VolumeChange {
  patch: Partial<Pick<VolumeRecord, 'settledUntilMs' | 'chargedMicros' | 'settleSeq' | 'pendingChargeMicros'>>;
  settlement?: SettlementWrite<VolumeSettlementRecord>;
}

export type RemoveVolumeOutcome = { ok: true; volume: VolumeRecord } | { ok: false; reason: 'in_use' | 'not_found' };

export interface VolumeStore {
  create(
    volume: Pick<VolumeRecord, 'accountId' | 'name' | 'sizeGb' | 'priceMicrosPerGbMonth' | 'createdAtMs'>,
  ): Promise<VolumeRecord>;
  get(id: number): Promise<VolumeRecord | null>;
  /** An account's volumes, deleted ones included, newest first. */
  list(accountId: string, limit: number, offset: number): Promise<VolumeRecord[]>;
  /** The volumes a machine keeps: pinned to it and not deleted. */
  onMachine(machineId: string): Promise<VolumeRecord[]>;
  /**
   * Volumes the sweeper must settle, least recently settled first: existing ones settled before `settledBeforeMs`,
   * deleted ones with time left to charge, and any with a settlement left to post.
   */
  billable(settledBeforeMs: number, limit: number): Promise<VolumeRecord[]>;
  /** Compare-and-set on `version`; null when it changed meanwhile. */
  change(id: number, version: number, change: VolumeChange): Promise<VolumeRecord | null>;
  /** Marks the volume deleted at `atMs`, unless an instance that is not terminated has it attached (or it is deleted). */
  remove(id: number, atMs: number): Promise<RemoveVolumeOutcome>;
}

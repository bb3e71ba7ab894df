/**
 * Rentals (instances) and their billing (SPEC 1.3-1.4, 3.3, 4.5; DESIGN.md 3 "Rentals"). A rental holds GPUs of one
 * machine from creation until it is stopped or deleted; it is billed only while its agent reports its container
 * running, up to the agent's last heartbeat. Metered plans (minute, hour) are charged per millisecond of running time; term plans (day, week, month)
 * hold what is left of the term's price while they run and are charged out of that hold. Every settlement is a
 * ledger transfer `rental:<id>:<n>` that also credits the provider their share (SPEC 1.6), recorded on the instance
 * before it is posted, so a process that dies in between leaves it to be posted again under the same id, never twice.
 */
import type { Ledger, LotSpec } from '../../adapters/ledger/index.js';
import type {
  InstanceChange,
  InstanceRecord,
  MachineRecord,
  MarketStore,
  PricingType,
  StatusReason,
} from '../../adapters/market-store/index.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import { copyWith } from '../../lib/copy-with.js';
import { newId } from '../../lib/ids.js';
import { assertNoDebt } from '../billing/debt-guard.js';
import type { Principal } from '../keys/authenticator.js';
import { overPendingCap, requirePendingRoom } from './account-caps.js';
import { insertCovered } from './balance-cover.js';
import { owedAtHalt } from './commitment.js';
import { requireWithinCap } from './listing-prices.js';
import { withPlanHint } from './plan-fit.js';
import { costOfRunning, dueAtStart, isTermPlan, owedFor, type RentalTerms, UNIT_MS, unitPriceMicros } from './plans.js';
import { runwayRule } from './runway.js';
import { postCharge, settleRecorded } from './settlements.js';
import { holdTerm, renewAt, renewTermHolds } from './term-holds.js';
import type { Volumes } from './volumes.js';

export interface RentalSettings {
  /** The platform's share of each rental charge, in basis points (the rest is the provider's). */
  feeBp: number;
  /** A machine silent this long is offline; its rentals stop accruing (SPEC 1.6 agents heartbeat). */
  offlineAfterMs: number;
  /** How often the sweeper settles (at most a minute): a metered rental runs on only while the balance covers that long. */
  sweepMs: number;
  /** A rental its agent has not run this long after it became pending is stopped (`start_timeout`). */
  pendingTtlMs: number;
  /** A rental offline this long is stopped (`host_offline`): nothing is billed while it is, so it holds nothing for free. */
  offlineTtlMs: number;
  /** The most pending rentals one account may have (./account-caps.ts). */
  maxPendingRentals: number;
}

export interface RentalDeps {
  store: MarketStore;
  ledger: Ledger;
  now: () => number;
  settings: RentalSettings;
  /** The lot a provider's earnings are credited as (USD at the market rate, like a dollar top-up). */
  earningsLot: () => LotSpec;
  volumes: Volumes;
  onUnexpected: (err: unknown) => void;
}

/** One rental to place on a machine. */
export interface Placement {
  machine: MachineRecord;
  gpuCount: number;
  pricingType: PricingType;
  dockerImage: string;
  diskGb: number;
  burstOrderId: string | null;
  /** The volume mounted at `/workspace`, pinned to this machine by the placement (null: none). */
  volumeId: number | null;
}

export interface CreateRental {
  offerId: string;
  pricingType: PricingType;
  gpuCount?: number;
  dockerImage: string;
  diskGb: number;
  volumeId?: number;
  /** `max_price_per_gpu_hour`: refused (409) when the offer's price now is above it (./listing-prices.ts). */
  maxPricePerGpuHourMicros?: bigint;
}

export type ContainerState = 'running' | 'exited' | 'failed';

/** A rental with the moment its running time is counted up to (its agent's last heartbeat while it runs). */
export interface Billed {
  instance: InstanceRecord;
  untilMs: number;
}

const CHANGE_ATTEMPTS = 8;
/** A read settles a rental once this much running time is unsettled (the sweeper settles it anyway). */
const READ_SETTLES_AFTER_MS = 60_000;
const SWEEP_BATCH = 500;

const proRata = (i: InstanceRecord, runningMs: number): bigint => owedFor(termsOf(i), runningMs);
const termsOf = (i: InstanceRecord): RentalTerms => ({
  pricingType: i.pricingType,
  unitPriceMicros: i.unitPriceMicros,
  gpuCount: i.gpuCount,
  termMs: i.termMs,
});

/** Running time up to `atMs`: the closed stretches plus the open one. */
export function runningTime(i: InstanceRecord, atMs: number): number {
  return i.runningMs + (i.runningSinceMs === null ? 0 : Math.max(0, atMs - i.runningSinceMs));
}

/** A rental as a read shows it: charged with everything it owes up to `untilMs`, settled or not yet. */
function showingOwed(instance: InstanceRecord, untilMs: number): Billed {
  const owed = proRata(instance, runningTime(instance, untilMs));
  return { instance: owed > instance.chargedMicros ? copyWith(instance, { chargedMicros: owed }) : instance, untilMs };
}

/** A machine is online while its agent has been heard from recently. */
export function isOnline(machine: MachineRecord, nowMs: number, offlineAfterMs: number): boolean {
  return machine.lastHeartbeatMs !== null && machine.lastHeartbeatMs >= nowMs - offlineAfterMs;
}

export class Rentals {
  constructor(private readonly deps: RentalDeps) {}

  /** Rents GPUs of an offer: 402 before anything is taken when the balance is short, 410 when they were taken meanwhile. */
  async create(principal: Principal, input: CreateRental): Promise<InstanceRecord> {
    assertNoDebt(principal.account);
    const now = this.deps.now();
    const machine = await this.deps.store.getMachine(input.offerId);
    if (machine === null || !this.isOffered(machine, now))
      throw new ApiError('offer_not_found', `No offer ${input.offerId} is available`);
    const gpuCount = input.gpuCount ?? machine.minGpus;
    if (gpuCount < machine.minGpus || gpuCount > machine.gpuCount) {
      throw invalidField(['body', 'gpu_count'], `this offer rents ${machine.minGpus} to ${machine.gpuCount} GPUs`);
    }
    if (input.diskGb > machine.diskGb)
      throw invalidField(['body', 'disk_gb'], `this offer has ${machine.diskGb} GB of disk`);
    if (machine.providerAccountId === principal.accountId)
      throw invalidField(
        ['body', 'offer_id'],
        'this is your own machine: a provider cannot rent it (the charge would pay itself)',
      );
    requireWithinCap(machine, input.maxPricePerGpuHourMicros ?? null, 'max_price_per_gpu_hour');
    const volumeId = input.volumeId ?? null;
    if (volumeId !== null) await this.deps.volumes.checkAttachable(principal, volumeId, machine.id);
    const placed = await this.place(
      principal.accountId,
      {
        machine,
        gpuCount,
        pricingType: input.pricingType,
        dockerImage: input.dockerImage,
        diskGb: input.diskGb,
        burstOrderId: null,
        volumeId,
      },
      now,
    ).catch(async (err: unknown) => {
      if (!(err instanceof ApiError) || err.code !== 'insufficient_balance') throw err;
      throw withPlanHint(
        err,
        machine,
        gpuCount,
        input.pricingType,
        (await this.deps.ledger.getBalance(principal.accountId)).availableMicros,
      );
    });
    if (placed === null)
      throw new ApiError('rental_unavailable', `The GPUs of offer ${machine.id} were taken by someone else`);
    return placed;
  }

  /** Listed, its agent online, and within its availability: what the marketplace offers. */
  isOffered(machine: MachineRecord, now: number): boolean {
    return (
      machine.listed &&
      isOnline(machine, now, this.deps.settings.offlineAfterMs) &&
      (machine.availableUntilMs === null || machine.availableUntilMs > now)
    );
  }

  /**
   * Places one rental on a machine at its listed price: a term plan's price is held first (402 when short), a
   * metered plan needs its hour of runtime and the account's other metered rentals' (./runway.ts). Null when the
   * GPUs were taken meanwhile; 409 `volume_in_use` when its volume was pinned to another machine (or deleted)
   * meanwhile. Either way nothing is kept.
   */
  async place(accountId: string, p: Placement, now: number): Promise<InstanceRecord | null> {
    const termMs = isTermPlan(p.pricingType) ? UNIT_MS[p.pricingType] : null;
    const terms: RentalTerms = {
      pricingType: p.pricingType,
      unitPriceMicros: unitPriceMicros(p.machine, p.pricingType),
      gpuCount: p.gpuCount,
      termMs,
    };
    const id = newId('inst');
    await requirePendingRoom(this.deps.store, accountId, 1, this.deps.settings.maxPendingRentals);
    if (p.volumeId !== null) await this.deps.volumes.settleBeforePin(p.volumeId);
    const holdId =
      termMs === null ? null : await holdTerm(this.deps.ledger, accountId, dueAtStart(terms, 0n), termMs, now);
    const insert = () =>
      this.deps.store.place({
        id,
        accountId,
        burstOrderId: p.burstOrderId,
        machineId: p.machine.id,
        providerAccountId: p.machine.providerAccountId,
        gpuName: p.machine.gpuName,
        dockerImage: p.dockerImage,
        diskGb: p.diskGb,
        ...terms,
        desiredStatus: 'running',
        status: 'pending',
        statusReason: null,
        runningSinceMs: null,
        runningMs: 0,
        settledRunningMs: 0,
        chargedMicros: 0n,
        settleSeq: 0,
        pendingChargeMicros: 0n,
        minutePriceMicros: unitPriceMicros(p.machine, 'minute'),
        holdId,
        holdRenewAtMs: holdId === null ? null : renewAt(now),
        sshPort: null,
        volumeId: p.volumeId,
        createdAtMs: now,
        updatedAtMs: now,
      });
    const placed = await this.runwayFor(accountId, terms, insert).catch(async (err: unknown) => {
      if (holdId !== null) await this.deps.ledger.release({ holdId, nowMs: now });
      throw err;
    });
    if (placed.ok) return this.keptWithinPendingCap(placed.instance);
    if (holdId !== null) await this.deps.ledger.release({ holdId, nowMs: now });
    if (placed.reason === 'volume_elsewhere')
      throw new ApiError(
        'volume_in_use',
        `Volume ${p.volumeId} was attached on another machine, or deleted, meanwhile`,
      );
    return null;
  }

  /** A placement that raced others of its account past the pending cap is undone (./account-caps.ts). */
  private async keptWithinPendingCap(instance: InstanceRecord): Promise<InstanceRecord> {
    const over = await overPendingCap(this.deps.store, instance.accountId, this.deps.settings.maxPendingRentals);
    if (over === null) return instance;
    await this.unplace(instance);
    throw over;
  }

  /** Undoes a placement moments old that nothing has run on (a burst order that could not be placed whole). */
  async unplace(instance: InstanceRecord): Promise<void> {
    if (instance.holdId !== null) await this.deps.ledger.release({ holdId: instance.holdId, nowMs: this.deps.now() });
    await this.deps.store.unplace(instance.id);
  }

  /**
   * One of the caller's rentals with what it owes up to its agent's last heartbeat (SPEC 4.5). A read settles only
   * once a minute of running time is unsettled: reads are free to repeat, settlements are not (issue 23 item 10).
   */
  async get(principal: Principal, id: string): Promise<Billed> {
    const current = await this.owned(principal, id);
    const untilMs = await this.confirmedUntil(current, this.deps.now());
    const due =
      runningTime(current, untilMs) - current.settledRunningMs >= READ_SETTLES_AFTER_MS ||
      current.pendingChargeMicros !== 0n;
    return showingOwed(due ? await this.settle(current, untilMs) : current, untilMs);
  }

  /** Settles every running rental of an account up to its agent's last heartbeat (a top-up touches them, SPEC 4.5). */
  async settleAccount(accountId: string): Promise<void> {
    const now = this.deps.now();
    for (const instance of await this.deps.store.runningInstances(accountId))
      await this.settle(instance, await this.confirmedUntil(instance, now));
  }

  /** The caller's rentals, newest first, each with the running time its agent confirmed. */
  async list(principal: Principal, limit: number, offset: number): Promise<Billed[]> {
    const now = this.deps.now();
    const instances = await this.deps.store.listInstances(principal.accountId, limit, offset);
    // One read per machine, however many of the page's rentals it runs.
    const machines = new Map<string, Promise<MachineRecord | null>>();
    const machineOf = (id: string) => machines.get(id) ?? machines.set(id, this.deps.store.getMachine(id)).get(id)!;
    return Promise.all(
      instances.map(async (instance) => showingOwed(instance, await this.confirmedUntil(instance, now, machineOf))),
    );
  }

  /**
   * Running time counts up to the last heartbeat of the machine's agent: billing is for what the agent confirmed,
   * so a machine that dies between two sweeps is never billed for its silence.
   */
  private async confirmedUntil(
    instance: InstanceRecord,
    now: number,
    machineOf = (id: string) => this.deps.store.getMachine(id),
  ): Promise<number> {
    if (instance.runningSinceMs === null) return now;
    const machine = await machineOf(instance.machineId);
    return Math.min(now, machine?.lastHeartbeatMs ?? now);
  }

  async history(id: string) {
    return this.deps.store.history(id);
  }

  /** Starts a stopped rental again on the same machine: 409 `resources_unavailable` when its GPUs were taken. */
  async start(principal: Principal, id: string): Promise<InstanceRecord> {
    assertNoDebt(principal.account);
    const now = this.deps.now();
    const current = await this.owned(principal, id);
    if (current.desiredStatus === 'terminated') throw new ApiError('instance_terminated', `Instance ${id} was deleted`);
    if (current.desiredStatus === 'running') return current;
    const terms = termsOf(current);
    const due = dueAtStart(terms, current.chargedMicros);
    // A term runs until its running time is used up; one paid in full already (./commitment.ts) holds nothing more.
    if (current.termMs !== null && current.runningMs >= current.termMs)
      throw new ApiError('plan_expired', `The ${current.pricingType} term of instance ${id} is used up; rent again`);
    await requirePendingRoom(this.deps.store, principal.accountId, 1, this.deps.settings.maxPendingRentals);
    const holdId =
      current.termMs === null || due <= 0n
        ? null
        : await holdTerm(this.deps.ledger, principal.accountId, due, current.termMs - current.settledRunningMs, now);
    const patch = {
      desiredStatus: 'running',
      status: 'pending',
      statusReason: null,
      holdId,
      holdRenewAtMs: holdId === null ? null : renewAt(now),
      updatedAtMs: now,
    } as const;
    const change = () => this.deps.store.change(id, current.version, { patch, gpus: 'acquire' });
    const started = await this.runwayFor(principal.accountId, terms, change);
    if (started.ok) return started.instance;
    if (holdId !== null) await this.deps.ledger.release({ holdId, nowMs: now });
    if (started.reason === 'gpus_taken')
      throw new ApiError(
        'resources_unavailable',
        `The GPUs instance ${id} ran on were rented by someone else; rent another offer`,
      );
    return this.start(principal, id);
  }

  /** Stops a rental: settled, its GPUs released, nothing more accrues (SPEC 1.4). Stopping a stopped one is a no-op. */
  async stop(principal: Principal, id: string): Promise<InstanceRecord> {
    const current = await this.owned(principal, id);
    if (current.desiredStatus !== 'running') return current;
    return this.halt(current, 'stopped', 'user', this.deps.now());
  }

  /** Terminates a rental: settled, the unused rest of a term given back, the GPUs released and the disk wiped by the agent. */
  async remove(principal: Principal, id: string): Promise<InstanceRecord> {
    const current = await this.owned(principal, id);
    if (current.desiredStatus === 'terminated') return current;
    return this.halt(current, 'terminated', 'user', this.deps.now());
  }

  /**
   * What an agent reports about its containers (SPEC 1.6): a container running starts its rental's clock; one that
   * `failed` (stopped on its own) while its rental should run stops the rental with reason `error`, as does one that
   * `exited` after it was seen running (a container the agent stopped on request is `exited` too, and is not news).
   */
  async reportContainers(
    machine: MachineRecord,
    containers: readonly { instanceId: string; state: ContainerState }[],
  ): Promise<void> {
    const now = this.deps.now();
    for (const report of containers) {
      const current = await this.deps.store.getInstance(report.instanceId);
      if (current === null || current.machineId !== machine.id || current.desiredStatus !== 'running') continue;
      if (report.state === 'running') {
        if (current.status === 'running') continue;
        await this.changeWith(current, (i) =>
          i.desiredStatus === 'running' && i.status !== 'running'
            ? { patch: { status: 'running', statusReason: null, runningSinceMs: now, updatedAtMs: now } }
            : null,
        );
      } else if (report.state === 'failed' || current.status === 'running') {
        await this.halt(current, 'stopped', 'error', now);
      }
    }
  }

  /**
   * The sweeper (DESIGN.md 3 "Balance runs out"): settles every running rental; a rental whose machine went silent
   * is billed up to the last heartbeat and marked offline; a metered rental the balance cannot keep running until the
   * next sweep is stopped with reason `insufficient_balance` (so a balance is used up to its last sweep's worth and
   * never goes negative); a term used up is stopped with `plan_expired`; a term rental's hold is kept standing
   * (./term-holds.ts). Pending and offline rentals are never billed, so they expire: stopped with `start_timeout`
   * once pending for `pendingTtlMs`, with `host_offline` once offline for `offlineTtlMs` (their GPUs and hold given
   * back; the SSH proxy then takes their ports back).
   */
  async sweep(): Promise<void> {
    const now = this.deps.now();
    const { store, ledger, onUnexpected } = this.deps;
    await renewTermHolds(
      { store, ledger, stopUnpaid: (i, at) => this.halt(i, 'stopped', 'insufficient_balance', at) },
      now,
      onUnexpected,
    ).catch(onUnexpected);
    const { pendingTtlMs, offlineTtlMs } = this.deps.settings;
    for (const [status, ttlMs, reason] of [
      ['pending', pendingTtlMs, 'start_timeout'],
      ['offline', offlineTtlMs, 'host_offline'],
    ] as const) {
      for (const stale of await store.staleInstances(status, now - ttlMs, SWEEP_BATCH))
        await this.halt(stale, 'stopped', reason, now).catch(onUnexpected);
    }
    const machines = new Map<string, MachineRecord | null>();
    for (const found of await this.deps.store.activeInstances(SWEEP_BATCH)) {
      try {
        if (!machines.has(found.machineId))
          machines.set(found.machineId, await this.deps.store.getMachine(found.machineId));
        await this.sweepOne(found, machines.get(found.machineId) ?? null, now);
      } catch (err) {
        this.deps.onUnexpected(err);
      }
    }
  }

  private async sweepOne(found: InstanceRecord, machine: MachineRecord | null, now: number): Promise<void> {
    const untilMs = Math.min(now, machine?.lastHeartbeatMs ?? now);
    const settled = await this.settle(found, found.runningSinceMs === null ? now : untilMs);
    if (settled.status !== 'running') return;
    if (machine === null || !isOnline(machine, now, this.deps.settings.offlineAfterMs)) {
      await this.changeWith(settled, (i) =>
        i.status === 'running'
          ? {
              patch: {
                status: 'offline',
                statusReason: 'host_offline',
                runningMs: runningTime(i, untilMs),
                runningSinceMs: null,
                updatedAtMs: now,
              },
            }
          : null,
      );
      return;
    }
    if (settled.termMs !== null) {
      if (runningTime(settled, untilMs) >= settled.termMs) await this.halt(settled, 'stopped', 'plan_expired', now);
      return;
    }
    // Every metered rental of the account draws on one balance: it must cover all of them until the next sweep.
    const { availableMicros } = await this.deps.ledger.getBalance(settled.accountId);
    const running = (await this.deps.store.runningInstances(settled.accountId)).filter((i) => i.termMs === null);
    const needed = running.reduce((sum, i) => sum + costOfRunning(termsOf(i), this.deps.settings.sweepMs), 0n);
    if (availableMicros < needed) await this.halt(settled, 'stopped', 'insufficient_balance', now);
  }

  /**
   * Settles, stops or terminates the rental (its GPUs released), then gives back what is left of the hold it ran on.
   * The change comes first: a crash after it leaves the hold to expire, never a running rental without its hold.
   */
  private async halt(
    current: InstanceRecord,
    to: 'stopped' | 'terminated',
    reason: StatusReason,
    now: number,
  ): Promise<InstanceRecord> {
    const untilMs = await this.confirmedUntil(current, now);
    let released: string | null = null;
    let instance = await this.settle(current, untilMs, owedAtHalt);
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      if (instance.desiredStatus === to || instance.desiredStatus === 'terminated') return instance;
      released = instance.holdId;
      const outcome = await this.deps.store.change(instance.id, instance.version, {
        patch: {
          desiredStatus: to,
          status: to,
          statusReason: reason,
          runningMs: runningTime(instance, untilMs),
          runningSinceMs: null,
          holdId: null,
          holdRenewAtMs: null,
          updatedAtMs: now,
        },
        gpus: 'release',
      });
      if (outcome.ok) {
        if (released !== null) await this.deps.ledger.release({ holdId: released, nowMs: now });
        return outcome.instance;
      }
      instance = await this.settle(await this.reread(instance.id), untilMs, owedAtHalt);
    }
    throw new Error(`instance ${current.id}: change kept losing to concurrent changes`);
  }

  /**
   * Charges what the rental owes up to `atMs` beyond what it was charged (record, then post: ./settlements.ts); what it
   * owes for its running time is its plan's pro rata, or, as it stops, `owedAtHalt` (./commitment.ts).
   */
  async settle(
    current: InstanceRecord,
    atMs: number,
    owes: (i: InstanceRecord, runningMs: number) => bigint = proRata,
  ): Promise<InstanceRecord> {
    const { store, ledger, settings } = this.deps;
    return settleRecorded(current, {
      what: `instance ${current.id}`,
      owed: (i) => owes(i, runningTime(i, atMs)),
      record: async (i, seq, owed, charge) => {
        const recorded = await store.change(i.id, i.version, {
          patch: {
            settleSeq: seq,
            settledRunningMs: runningTime(i, atMs),
            chargedMicros: owed,
            pendingChargeMicros: charge,
            updatedAtMs: atMs,
          },
          settlement: {
            recorded: {
              instanceId: i.id,
              seq,
              machineId: i.machineId,
              providerAccountId: i.providerAccountId,
              chargedMicros: charge,
              providerMicros: null,
              atMs,
            },
          },
        });
        return recorded.ok ? recorded.instance : null;
      },
      post: (i) =>
        postCharge(ledger, {
          id: `rental:${i.id}:${i.settleSeq}`,
          accountId: i.accountId,
          holdId: i.holdId,
          amountMicros: i.pendingChargeMicros,
          chargedBeforeMicros: i.chargedMicros - i.pendingChargeMicros,
          nowMs: atMs,
          memo: `GPU rental ${i.id}`,
          provider: { accountId: i.providerAccountId, feeBp: settings.feeBp, lot: this.deps.earningsLot() },
        }),
      clear: async (i, providerMicros) => {
        const cleared = await store.change(i.id, i.version, {
          patch: { pendingChargeMicros: 0n },
          settlement: { posted: { seq: i.settleSeq, providerMicros } },
        });
        return cleared.ok ? cleared.instance : null;
      },
      reread: (i) => this.reread(i.id),
    });
  }

  /** A compare-and-set that re-reads and re-decides on a concurrent change; `decide` answers null when nothing is left to do. */
  private async changeWith(
    current: InstanceRecord,
    decide: (i: InstanceRecord) => InstanceChange | null,
  ): Promise<InstanceRecord> {
    let instance = current;
    for (let attempt = 0; attempt < CHANGE_ATTEMPTS; attempt++) {
      const change = decide(instance);
      if (change === null) return instance;
      const outcome = await this.deps.store.change(instance.id, instance.version, change);
      if (outcome.ok) return outcome.instance;
      instance = await this.reread(instance.id);
    }
    throw new Error(`instance ${current.id}: change kept losing to concurrent changes`);
  }

  private async reread(id: string): Promise<InstanceRecord> {
    const instance = await this.deps.store.getInstance(id);
    if (instance === null) throw new ApiError('instance_not_found', `No instance ${id}`, { notFound: true });
    return instance;
  }

  private async owned(principal: Principal, id: string): Promise<InstanceRecord> {
    const instance = await this.deps.store.getInstance(id);
    if (instance === null || instance.accountId !== principal.accountId)
      throw new ApiError('instance_not_found', `No instance ${id}`, { notFound: true });
    return instance;
  }

  /** Runs the insert of a start: a term plan's is paid by its hold already; a metered plan's needs its runway (./runway.ts). */
  private runwayFor<T>(accountId: string, terms: RentalTerms, insert: () => Promise<T>): Promise<T> {
    return terms.termMs === null
      ? insertCovered(this.deps.ledger, this.deps.now, runwayRule(this.deps.store, accountId, terms), insert)
      : insert();
  }
}

/**
 * The provider side of the marketplace (SPEC 1.6): a provider registers a machine with its GPU inventory and
 * listing (hourly price per GPU, availability, minimum GPUs per rental, commitment discounts), and its agent
 * heartbeats with the state of the containers it runs, answered with what it must run. A new machine is
 * `unverified`; only an operator verifies it (admin CLI).
 */
import type {
  Discounts,
  InstanceRecord,
  MachineRecord,
  MarketStore,
  Verification,
} from '../../adapters/market-store/index.js';
import { ApiError, invalidField } from '../../errors/api-error.js';
import { DomainError } from '../../errors/domain-error.js';
import { newId } from '../../lib/ids.js';
import type { Principal } from '../keys/authenticator.js';
import { requireUnverifiedRoom } from './account-caps.js';
import { repriced } from './listing-prices.js';
import { DEFAULT_DISCOUNTS_BP, MAX_DISCOUNT_BP } from './plans.js';
import type { ContainerState, Rentals } from './rentals.js';
import type { SshKeys } from './ssh-keys.js';
import { dockerVolumeName } from './volumes.js';

export interface Listing {
  pricePerGpuHourMicros: bigint;
  minGpus?: number;
  discountsBp?: Discounts;
  availableUntilMs?: number | null;
  listed?: boolean;
}

/** What the agent reports of the machine. */
export type Inventory = Pick<
  MachineRecord,
  'name' | 'gpuName' | 'gpuCount' | 'vramGb' | 'cpuCores' | 'ramGb' | 'diskGb' | 'location'
>;

/** What an agent must do with one rental's container, and the renter's SSH keys for a container it creates. */
export interface Assignment {
  instance: Pick<InstanceRecord, 'id' | 'desiredStatus' | 'dockerImage' | 'diskGb' | 'gpuIndexes' | 'volumeId'>;
  sshPublicKeys: string[];
}

/** The answer to a heartbeat: what to do with each container, and the Docker volumes the machine keeps. */
export interface AgentOrders {
  assignments: Assignment[];
  volumes: string[];
}

export interface MachineSettings {
  /** The most machines a provider may list unverified (./account-caps.ts). */
  maxUnverifiedListed: number;
  /** How long a price rise waits before new rentals pay it (./listing-prices.ts). */
  priceRiseNoticeMs: number;
}

export class Machines {
  constructor(
    private readonly store: MarketStore,
    private readonly rentals: Rentals,
    private readonly sshKeys: SshKeys,
    private readonly now: () => number,
    private readonly settings: MachineSettings,
  ) {}

  async register(principal: Principal, inventory: Inventory, listing: Listing): Promise<MachineRecord> {
    const now = this.now();
    const machine: MachineRecord = {
      id: newId('mch'),
      providerAccountId: principal.accountId,
      ...inventory,
      pricePerGpuHourMicros: listing.pricePerGpuHourMicros,
      minGpus: listing.minGpus ?? 1,
      discountsBp: listing.discountsBp ?? DEFAULT_DISCOUNTS_BP,
      availableUntilMs: listing.availableUntilMs ?? null,
      listed: listing.listed ?? true,
      verification: 'unverified',
      lastHeartbeatMs: now,
      reliabilityBp: 10_000,
      priceRise: null,
      createdAtMs: now,
    };
    checkListing(machine);
    if (machine.listed) await requireUnverifiedRoom(this.store, principal.accountId, this.settings.maxUnverifiedListed);
    await this.store.addMachine(machine);
    return machine;
  }

  async list(principal: Principal): Promise<MachineRecord[]> {
    return this.store.listMachines(principal.accountId);
  }

  /**
   * A new listing applies to rentals made from now on; running ones keep the price they were rented at. New prices
   * that raise a plan's price are announced and reach new rentals after the notice period (./listing-prices.ts).
   */
  async updateListing(principal: Principal, machineId: string, listing: Partial<Listing>): Promise<MachineRecord> {
    const machine = await this.owned(principal, machineId);
    const { pricePerGpuHourMicros, discountsBp, ...rest } = Object.fromEntries(
      Object.entries(listing).filter(([, v]) => v !== undefined),
    ) as Partial<Listing>;
    checkListing({ ...machine, ...rest, ...(discountsBp === undefined ? {} : { discountsBp }) });
    if (rest.listed === true && !machine.listed && machine.verification !== 'verified')
      await requireUnverifiedRoom(this.store, principal.accountId, this.settings.maxUnverifiedListed);
    const sent = {
      ...(pricePerGpuHourMicros === undefined ? {} : { pricePerGpuHourMicros }),
      ...(discountsBp === undefined ? {} : { discountsBp }),
    };
    const pricing =
      Object.keys(sent).length === 0 ? {} : repriced(machine, sent, this.now(), this.settings.priceRiseNoticeMs);
    return (await this.store.updateMachine(machineId, { ...rest, ...pricing }))!;
  }

  /** Announced rises whose notice has passed become the listing (the sweeper, every `RENTAL_SWEEP_MS`). */
  async applyDuePriceRises(): Promise<void> {
    await this.store.applyPriceRises(this.now());
  }

  /** The agent's heartbeat: the machine is online, its containers' states are applied, and it learns what to run and keep. */
  async heartbeat(
    principal: Principal,
    machineId: string,
    containers: readonly { instanceId: string; state: ContainerState }[],
  ): Promise<AgentOrders> {
    const machine = await this.owned(principal, machineId);
    const now = this.now();
    const heard = (await this.store.updateMachine(machineId, { lastHeartbeatMs: now }))!;
    await this.store.recordUptime(machineId, Math.floor(now / 60_000));
    await this.rentals.reportContainers(heard, containers);
    const live = await this.store.machineInstances(machine.id);
    const known = new Set(live.map((i) => i.id));
    // A container of a rental deleted meanwhile is to be removed (and its disk wiped).
    const gone = containers
      .filter((c) => !known.has(c.instanceId))
      .map((c) => ({
        id: c.instanceId,
        desiredStatus: 'terminated' as const,
        dockerImage: '',
        diskGb: 0,
        gpuIndexes: [],
        volumeId: null,
      }));
    const keysOf = new Map<string, string[]>();
    for (const i of live)
      if (i.desiredStatus === 'running' && !keysOf.has(i.accountId))
        keysOf.set(i.accountId, await this.sshKeys.authorizedKeys(i.accountId));
    return {
      assignments: [
        ...live.map((instance) => ({ instance, sshPublicKeys: keysOf.get(instance.accountId) ?? [] })),
        ...gone.map((instance) => ({ instance, sshPublicKeys: [] })),
      ],
      volumes: (await this.store.volumes.onMachine(machine.id)).map((v) => dockerVolumeName(v.id)),
    };
  }

  /** One of the caller's machines; another provider's or an unknown one is 404 `machine_not_found`. */
  async owned(principal: Principal, machineId: string): Promise<MachineRecord> {
    const machine = await this.store.getMachine(machineId);
    if (machine === null || machine.providerAccountId !== principal.accountId)
      throw new ApiError('machine_not_found', `No machine ${machineId}`, { notFound: true });
    return machine;
  }
}

/** The operator's verdict on a machine (admin CLI): verified machines are what `verified=true` offers show. */
export async function setVerification(
  store: MarketStore,
  machineId: string,
  verification: Verification,
): Promise<MachineRecord> {
  const machine = await store.updateMachine(machineId, { verification });
  if (machine === null) throw new DomainError('machine_not_found', `No machine ${machineId}`);
  return machine;
}

/** The listing rules the contract cannot state: min GPUs within the machine, discounts rising with the term, capped. */
function checkListing(m: MachineRecord): void {
  if (m.minGpus > m.gpuCount) throw invalidField(['body', 'min_gpus'], `must not exceed gpu_count (${m.gpuCount})`);
  const { day, week, month } = m.discountsBp;
  if ([day, week, month].some((bp) => bp < 0 || bp > MAX_DISCOUNT_BP))
    throw invalidField(['body', 'discounts'], 'each discount is 0 to 40 percent (SPEC 1.3)');
  if (!(day <= week && week <= month))
    throw invalidField(['body', 'discounts'], 'a longer term is never discounted less than a shorter one');
}

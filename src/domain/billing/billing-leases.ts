import type { Logger } from 'pino';
import type { Ledger, Micros } from '../../adapters/ledger/index.js';
import { newId } from '../../lib/ids.js';

/**
 * Reserving in bulk (docs/money.md, the credit-control pattern of prepaid telecom, RFC 4006): an
 * account that keeps this process busy gets a lease, one ledger hold `lease:<process>:<n>` of a share of its
 * balance, and its requests reserve their worst case from it in memory instead of a hold of their own each. Every
 * charge is still a capture from that hold with its usage line, in one ledger write; a request's reservation still
 * caps what it can cost. So a busy account costs one ledger write per request instead of two, and none before the
 * work starts; an idle one gives its lease back, and a crashed process's lease expires like any hold.
 *
 * The ledger never lets leases overspend (they are holds); they only keep money from other processes. So a lease
 * takes at most an eighth of what is available, only when that covers many requests of the current size, and a
 * request refused for funds while this process leases money on the account gets that money back and is tried again.
 */
export interface LeaseSettings {
  /** Most one lease reserves; 0 turns leasing off. */
  maxMicros: Micros;
  /** A lease's life, renewed while it is in use (a crashed process's lease is back in the balance after it). */
  ttlMs: number;
  /** A lease not drawn on for this long is given back. */
  idleMs: number;
}

/** Money this process reserved on one account; requests carve their reservations from `freeMicros`. */
export interface Lease {
  readonly holdId: string;
  readonly accountId: string;
  /** What the lease reserved when it opened. */
  readonly sizeMicros: Micros;
  freeMicros: Micros;
  /** Reservations carved and not yet settled (their captures landed) or released. */
  outstanding: number;
  expiresAtMs: number;
  lastUsedMs: number;
  /** No more carving: given back once nothing is outstanding. */
  retiring: boolean;
}

/** A lease takes at most this share of the available balance (others may need the rest). */
const SHARE_OF_AVAILABLE = 8n;
/** A lease must cover at least this many reservations of the size that asked for it, or it is not worth a hold. */
const MIN_RESERVATIONS = 16n;
/** Reservations per second on one account, in this process, that make a lease worth opening. */
const BUSY_PER_SECOND = 4;
/** A lease is sized to this much of the account's recent demand. */
const DEMAND_WINDOWS = 10n;
/** A lease with less than this fraction of its size left is replaced before it runs out. */
const LOW_WATER = 4n;
/** After a lease could not be opened (too little money, an outage), wait this long before trying again. */
const BACKOFF_MS = 5_000;

/** Reservations on one account in this process: the current second, and what the last full one reserved. */
interface Demand {
  windowStartMs: number;
  count: number;
  micros: Micros;
  lastMicros: Micros;
}

export class BillingLeases {
  private readonly current = new Map<string, Lease>();
  private readonly retiring = new Set<Lease>();
  private readonly demand = new Map<string, Demand>();
  private readonly opening = new Map<string, Promise<void>>();
  private readonly closing = new Set<Promise<void>>();
  private readonly backoffUntil = new Map<string, number>();
  private readonly process = newId('gw');
  private seq = 0;

  constructor(
    private readonly ledger: Ledger,
    private readonly settings: LeaseSettings,
    private readonly now: () => number,
    private readonly logger: Logger,
  ) {}

  /**
   * A reservation of `amount` from the account's lease, or null when it has none with room (the caller then holds
   * on its own). Counts the account's demand either way, and opens a new lease when a busy account has none with
   * room, or is about to run out of it.
   */
  carve(accountId: string, amountMicros: Micros): Lease | null {
    if (this.settings.maxMicros === 0n) return null;
    const nowMs = this.now();
    const demand = this.noteDemand(accountId, amountMicros, nowMs);
    let lease = this.current.get(accountId);
    // Renewal (tick) keeps a lease in use at more than half a life; one below a quarter is not being renewed.
    if (lease !== undefined && lease.expiresAtMs - nowMs < this.settings.ttlMs / 4) {
      this.retire(lease);
      lease = undefined;
    }
    if (lease === undefined || lease.freeMicros < amountMicros) {
      this.openWhenBusy(accountId, amountMicros, demand, nowMs);
      return null;
    }
    lease.freeMicros -= amountMicros;
    lease.outstanding += 1;
    lease.lastUsedMs = nowMs;
    if (lease.freeMicros < lease.sizeMicros / LOW_WATER) this.openWhenBusy(accountId, amountMicros, demand, nowMs);
    return lease;
  }

  /**
   * Whether the lease's hold is sure to be pending for a while yet (a quarter of a lease's life, as `carve` asks),
   * so a capture from it posts what its reservation allows: renewed while in use, and never released while a
   * reservation is outstanding. A renewal the ledger refused (the hold expired or gone) ends that.
   */
  surelyPending(lease: Lease): boolean {
    return lease.expiresAtMs - this.now() >= this.settings.ttlMs / 4;
  }

  /** What the account's current lease can still reserve here (0 without one): money the ledger holds for this process. */
  freeMicros(accountId: string): Micros {
    return this.current.get(accountId)?.freeMicros ?? 0n;
  }

  /** Back into the lease: what a carved reservation did not use (its charge is `amount − returned`). */
  giveBack(lease: Lease, micros: Micros): void {
    lease.freeMicros += micros;
  }

  /** A carved reservation is over: its charge landed (or went to the journal), or it was released. */
  finish(lease: Lease): void {
    lease.outstanding -= 1;
    if (lease.retiring && lease.outstanding === 0) void this.close(lease);
  }

  /**
   * Gives back this process's idle money on the account (a request was refused for funds): true when there was
   * some, so the request is worth trying again.
   */
  async reclaim(accountId: string): Promise<boolean> {
    await this.opening.get(accountId);
    const lease = this.current.get(accountId);
    if (lease === undefined || lease.freeMicros === 0n) return false;
    this.retire(lease);
    if (lease.outstanding > 0) return false;
    await this.close(lease);
    return true;
  }

  /** Renews leases in use before they expire and gives back idle ones (run every second or so). */
  async tick(): Promise<void> {
    const nowMs = this.now();
    for (const [accountId, d] of this.demand) if (nowMs - d.windowStartMs > 2_000) this.demand.delete(accountId);
    for (const [accountId, untilMs] of this.backoffUntil) if (untilMs <= nowMs) this.backoffUntil.delete(accountId);
    const renewals: Promise<void>[] = [];
    for (const lease of [...this.current.values(), ...this.retiring]) {
      if (!lease.retiring && lease.outstanding === 0 && nowMs - lease.lastUsedMs >= this.settings.idleMs) {
        this.retire(lease);
        continue;
      }
      if ((lease.outstanding > 0 || !lease.retiring) && lease.expiresAtMs - nowMs <= this.settings.ttlMs / 2)
        renewals.push(this.renew(lease, nowMs));
    }
    await Promise.all(renewals);
  }

  /** Gives every lease back (shutdown, after every charge has landed). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.opening.values()]);
    for (const lease of [...this.current.values()]) this.retire(lease);
    for (const lease of [...this.retiring]) void this.close(lease);
    await Promise.all([...this.closing]);
  }

  private noteDemand(accountId: string, amountMicros: Micros, nowMs: number): Demand {
    let d = this.demand.get(accountId);
    if (d === undefined || nowMs - d.windowStartMs >= 1_000) {
      const lastMicros = d !== undefined && nowMs - d.windowStartMs < 2_000 ? d.micros : 0n;
      this.demand.set(accountId, (d = { windowStartMs: nowMs, count: 0, micros: 0n, lastMicros }));
    }
    d.count += 1;
    d.micros += amountMicros;
    return d;
  }

  private openWhenBusy(accountId: string, amountMicros: Micros, demand: Demand, nowMs: number): void {
    if (
      demand.count < BUSY_PER_SECOND ||
      this.opening.has(accountId) ||
      (this.backoffUntil.get(accountId) ?? 0) > nowMs
    )
      return;
    const perSecond = demand.micros > demand.lastMicros ? demand.micros : demand.lastMicros;
    const opening = this.open(accountId, amountMicros, perSecond).finally(() => this.opening.delete(accountId));
    this.opening.set(accountId, opening);
  }

  private async open(accountId: string, amountMicros: Micros, recentMicrosPerSecond: Micros): Promise<void> {
    try {
      const { availableMicros } = await this.ledger.getBalance(accountId);
      const size = leaseSize(availableMicros, amountMicros, recentMicrosPerSecond, this.settings.maxMicros);
      if (size === null) return this.backOff(accountId);
      const nowMs = this.now();
      const holdId = `lease:${this.process}:${++this.seq}`;
      const outcome = await this.ledger.hold({
        id: holdId,
        accountId,
        amountMicros: size,
        nowMs,
        ttlMs: this.settings.ttlMs,
      });
      if (!outcome.ok) return this.backOff(accountId);
      const previous = this.current.get(accountId);
      if (previous !== undefined) this.retire(previous);
      const lease = {
        holdId,
        accountId,
        sizeMicros: size,
        freeMicros: size,
        outstanding: 0,
        expiresAtMs: outcome.hold.expiresAtMs,
        lastUsedMs: nowMs,
        retiring: false,
      };
      this.current.set(accountId, lease);
    } catch (err) {
      this.logger.warn({ err, accountId }, 'could not open a billing lease; requests hold one by one');
      this.backOff(accountId);
    }
  }

  private backOff(accountId: string): void {
    this.backoffUntil.set(accountId, this.now() + BACKOFF_MS);
  }

  private retire(lease: Lease): void {
    if (lease.retiring) return;
    lease.retiring = true;
    if (this.current.get(lease.accountId) === lease) this.current.delete(lease.accountId);
    this.retiring.add(lease);
    if (lease.outstanding === 0) void this.close(lease);
  }

  /** Voids what is left of a retired lease; a failed release leaves it to expire. */
  private close(lease: Lease): Promise<void> {
    if (!this.retiring.delete(lease)) return Promise.resolve();
    const released = this.ledger
      .release({ holdId: lease.holdId, nowMs: this.now() })
      .then(
        () => undefined,
        (err: unknown) => this.logger.warn({ err, holdId: lease.holdId }, 'lease release failed; it will expire'),
      )
      .finally(() => this.closing.delete(released));
    this.closing.add(released);
    return released;
  }

  private async renew(lease: Lease, nowMs: number): Promise<void> {
    try {
      const outcome = await this.ledger.extend({
        holdId: lease.holdId,
        expiresAtMs: nowMs + this.settings.ttlMs,
        nowMs,
      });
      if (outcome.ok) lease.expiresAtMs = outcome.hold.expiresAtMs;
      else {
        lease.expiresAtMs = nowMs; // no longer pending: its captures will find it so
        this.retire(lease);
      }
    } catch (err) {
      this.logger.warn({ err, holdId: lease.holdId }, 'lease renewal failed; retried at the next tick');
    }
  }
}

/**
 * How much a new lease reserves: DEMAND_WINDOWS seconds of the account's recent reservations, at most a share of
 * what is available and `maxMicros`; null when that would not cover MIN_RESERVATIONS of the current size.
 */
export function leaseSize(
  availableMicros: Micros,
  amountMicros: Micros,
  recentMicrosPerSecond: Micros,
  maxMicros: Micros,
): Micros | null {
  const ceiling = min(maxMicros, availableMicros / SHARE_OF_AVAILABLE);
  const floor = amountMicros * MIN_RESERVATIONS;
  if (ceiling < floor) return null;
  const wanted = recentMicrosPerSecond * DEMAND_WINDOWS;
  return wanted < floor ? floor : min(wanted, ceiling);
}

const min = (a: Micros, b: Micros): Micros => (a < b ? a : b);

import type { Logger } from 'pino';
import type { ChargeJournal, PendingCharge } from '../../adapters/charge-journal/index.js';
import type {
  Balance,
  CaptureOutcome,
  HoldOutcome,
  Ledger,
  Micros,
  SettleOutcome,
  TransferOutcome,
  UsageLine,
} from '../../adapters/ledger/index.js';
import type { UsageKind } from '../../adapters/usage-log/index.js';
import { ApiError } from '../../errors/api-error.js';
import { newSortableId } from '../../lib/ids.js';
import type { Principal } from '../keys/authenticator.js';
import { BillingLeases, type Lease, type LeaseSettings } from './billing-leases.js';
import { assertNoDebt } from './debt-guard.js';
import type { KeyBudget } from './key-budget.js';
import { microsToUsd } from './money.js';

/** Money reserved for one request in flight (SPEC 4.2 pre-flight). */
export interface Reservation {
  /** The request's own hold, or the lease it was carved from. */
  holdId: string;
  requestId: string;
  principal: Principal;
  amountMicros: Micros;
  startedAtMs: number;
  /** Set when carved from a lease (billing-leases.ts): charged by a capture of at most `amountMicros`. */
  lease: Lease | null;
  /** The key has a spend limit: a key hold under `holdId` shadows the ledger hold (key-budget.ts). */
  keyHeld: boolean;
}

/** What a billed call was, for its usage line (SPEC 2.6). */
export interface CallDetails {
  model: string;
  kind: UsageKind;
  endpoint: string;
  promptTokens?: number;
  completionTokens?: number;
  cachedTokens?: number;
  reasoningTokens?: number;
  metadata?: Record<string, unknown>;
}

/** What the caller was charged. */
export interface Charge {
  /** What was posted: the cost, or the hold when the cost was more (the rest is the platform's loss). */
  costMicros: Micros;
  /** Exact rubles from the lots that paid, when the account is billed in rubles (SPEC 4.3). */
  costRubMicro: bigint | null;
  fxRateRubMicro: bigint | null;
  usageId: string;
}

/** The platform absorbed `lossMicros` of a request's cost (DESIGN.md 3 "Hold = ceiling"): an operator signal. */
export interface LossReport {
  requestId: string;
  model: string;
  lossMicros: Micros;
}

export interface BillingOptions {
  now: () => number;
  holdTtlMs: number;
  logger: Logger;
  /** Where a charge that could not be posted is kept until it lands. */
  journal: ChargeJournal;
  onLoss: (report: LossReport) => void;
  leases: LeaseSettings;
  /** Key spend limits (issue 26 item 6): only requests of a key that has one reach it. */
  keyBudget: KeyBudget;
}

/**
 * The billing flows every paid operation uses: reserve the worst case, settle to the actual cost (never more than
 * the reservation) or release. The ledger being unreachable on the way in never means "serve and hope": the
 * request is refused with 503 billing_temporarily_unavailable before any work is done (SPEC 7.2). On the way out
 * the work is done, so a charge that cannot be posted is recorded in the journal and retried until it lands.
 *
 * A charge is durable before its answer leaves (issue "every answer is billed, even across kill -9"): settle
 * resolves once the ledger has committed the charge with its usage line, or handed it to the database (`settle`),
 * or the journal has kept it, so a process killed after answering never leaves an answered request unbilled.
 * Ledger writes are group-committed, so the wait is one shared commit. Reads of an account's money wait for its
 * charges in flight (a job's charge, a capture finishing), so a caller always reads its own writes. A busy account
 * reserves from a lease instead of a hold per request (billing-leases.ts): nothing to wait for before the work, one
 * ledger write per request.
 */
export class Billing {
  /** Postings in flight, by account. */
  private readonly posting = new Map<string, Set<Promise<Charge>>>();
  private readonly leases: BillingLeases;

  constructor(
    private readonly ledger: Ledger,
    private readonly options: BillingOptions,
  ) {
    this.leases = new BillingLeases(ledger, options.leases, options.now, options.logger);
  }

  /**
   * Reserves the worst case of a request. `durable`: a hold of its own in the ledger, never carved from this
   * process's lease, for work another process may finish after this one died (a job, SPEC 3.1). A key with a spend
   * limit takes a key hold first (402 `key_spend_limit_reached` when its period has no room) and never a lease:
   * a lease is this process's money, and the limit is checked against every process's holds.
   */
  async reserve(
    principal: Principal,
    requestId: string,
    estimateMicros: Micros,
    options: { durable?: boolean } = {},
  ): Promise<Reservation> {
    const { accountId } = principal;
    assertNoDebt(principal.account);
    // A call can cost 0 (a few tokens on a cheap model, SPEC 2.2), but a reservation is never empty: it still
    // proves the account can pay, and settling posts the real amount, 0 included.
    const amountMicros = estimateMicros > 0n ? estimateMicros : 1n;
    const startedAtMs = this.options.now();
    const limit = principal.keySpendLimit;
    const lease = options.durable === true || limit !== null ? null : this.leases.carve(accountId, amountMicros);
    if (lease !== null)
      return { holdId: lease.holdId, requestId, principal, amountMicros, startedAtMs, lease, keyHeld: false };
    const holdId = `hold:${requestId}`;
    if (limit !== null) await this.options.keyBudget.reserve(principal, limit, holdId, amountMicros);
    try {
      await this.holdOwn(holdId, accountId, amountMicros);
    } catch (err) {
      if (limit !== null) await this.options.keyBudget.release(holdId);
      throw err;
    }
    return { holdId, requestId, principal, amountMicros, startedAtMs, lease: null, keyHeld: limit !== null };
  }

  /**
   * 402 unless the account can pay `floorMicros` now: checked before work that is costly to do for nothing (counting
   * a prompt, downloading inputs) for a key with no money (issue 23: nothing is counted before the account is shown
   * able to pay the request's floor). It runs before every count, on the hot path, so it costs no write: an account
   * this process leases money for shows it in memory (a lease is money the ledger already holds for this process),
   * any other one costs one balance read. An account without a lease makes only a few requests a second here (more
   * would open one, billing-leases.ts), so the read never sits on a busy path; a busy account too poor for a lease
   * pays the read, which is what its requests are checked against. The hold taken after the count still decides.
   */
  async assertCanPay(principal: Principal, floorMicros: Micros): Promise<void> {
    assertNoDebt(principal.account);
    const needed = floorMicros > 0n ? floorMicros : 1n; // as reserve: a reservation is never empty
    const leased = this.leases.freeMicros(principal.accountId);
    if (leased >= needed) return;
    let balance: Balance;
    try {
      balance = await this.ledger.getBalance(principal.accountId);
    } catch (err) {
      this.options.logger.warn({ err }, 'ledger unreachable');
      throw new ApiError('billing_temporarily_unavailable');
    }
    const available = balance.availableMicros + leased;
    if (available < needed) {
      throw insufficientBalance(needed, available);
    }
  }

  /**
   * Posts what the call cost, capped at the reservation, with its usage line in the same transaction, and resolves
   * once it is durable: committed, handed off (below), or kept in the journal when the ledger cannot take it (then
   * retried until it lands). Never throws.
   *
   * A capture from a lease sure to stay pending posts exactly the capped cost, so in US dollars (a ruble amount is
   * known only from the lots its commit consumes) it is answered once the database has it: on PostgreSQL, once its
   * statement is written to the connection, which the server commits even if this process is killed right after
   * (the ledger's README.md, "Handed off"). The commit finishes after the answer, still tracked: reads of the
   * account wait for it, and a failure still goes to the journal.
   */
  async settle(reservation: Reservation, costMicros: Micros, details: CallDetails): Promise<Charge> {
    const pending = this.pendingCharge(reservation, costMicros, details);
    const capped = costMicros < reservation.amountMicros ? costMicros : reservation.amountMicros;
    const provisional: Charge = {
      costMicros: capped,
      costRubMicro: null,
      fxRateRubMicro: null,
      usageId: pending.usage.id,
    };
    const { lease } = reservation;
    if (lease !== null) this.leases.giveBack(lease, reservation.amountMicros - capped);
    let handedOff: Promise<Charge> | null = null;
    let onHandedOff: (() => void) | undefined;
    if (lease !== null && !reservation.principal.account.rubBilling && this.leases.surelyPending(lease))
      handedOff = new Promise((resolve) => (onHandedOff = () => resolve(provisional)));
    const posting = this.post(pending, onHandedOff).then(
      // Landed: its usage line now counts against the key's limit, so the key hold goes. A charge kept in the
      // journal keeps its key hold until it expires (docs/money.md "Key spend limits").
      async (charge) => (await this.releaseKeyHold(reservation), charge),
      async (err: unknown): Promise<Charge> => (await this.record(pending, err), provisional),
    );
    const tracked = this.track(
      pending.accountId,
      lease === null ? posting : posting.finally(() => this.leases.finish(lease)),
    );
    return handedOff === null ? tracked : Promise.race([tracked, handedOff]);
  }

  /**
   * A job's charge (SPEC 3.1: once, with the job's hold, on delivery), answered once it has landed (or been
   * journaled). A job resumed after a restart may find its hold posted already: that charge is answered, and
   * nothing is posted again. Answers what was charged.
   */
  async chargeOnce(reservation: Reservation, costMicros: Micros, details: CallDetails): Promise<Micros> {
    const hold = await this.ledger.getHold(reservation.holdId);
    if (hold?.status === 'posted') {
      await this.releaseKeyHold(reservation); // the process that charged it may have died before releasing it
      return hold.postedMicros ?? 0n;
    }
    return (await this.settle(reservation, costMicros, details)).costMicros;
  }

  /** Once every charge of the account started before the call has landed (or been journaled). */
  async settled(accountId: string): Promise<void> {
    await Promise.all([...(this.posting.get(accountId) ?? [])]);
  }

  /** Once every charge started so far has landed (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.posting.values()].flatMap((set) => [...set]));
  }

  /** Renews the leases in use and gives back idle ones (the container runs it every second). */
  tickLeases(): Promise<void> {
    return this.leases.tick();
  }

  /** Shutdown: every charge landed, then every lease given back. */
  async close(): Promise<void> {
    await this.drain();
    await this.leases.closeAll();
  }

  /** Reads an account's money after its charges in flight; unreachable → 503 billing_temporarily_unavailable (SPEC 7.2). */
  async read<T>(accountId: string, read: () => Promise<T>): Promise<T> {
    await this.settled(accountId);
    try {
      return await read();
    } catch {
      throw new ApiError('billing_temporarily_unavailable');
    }
  }

  /** Gives the reservation back after a failure; a failed release is left to the expiry sweeper. */
  async release(reservation: Reservation): Promise<void> {
    const { lease } = reservation;
    if (lease !== null) {
      this.leases.giveBack(lease, reservation.amountMicros);
      this.leases.finish(lease);
      return;
    }
    try {
      await this.ledger.release({ holdId: reservation.holdId, nowMs: this.options.now() });
    } catch (err) {
      this.options.logger.warn({ err, holdId: reservation.holdId }, 'release failed; the hold will expire');
    }
    await this.releaseKeyHold(reservation);
  }

  private async releaseKeyHold(reservation: Reservation): Promise<void> {
    if (reservation.keyHeld) await this.options.keyBudget.release(reservation.holdId);
  }

  /**
   * Keeps a reservation alive while work that may outlast its TTL runs (a stream, DESIGN.md 4): extended every
   * half TTL, so it never expires under the work; call the returned function when the work ends.
   */
  keepAlive(reservation: Reservation): () => void {
    if (reservation.lease !== null) return () => undefined; // a lease with reservations outstanding is renewed by tickLeases
    const extend = async () => {
      const nowMs = this.options.now();
      const outcome = await this.ledger.extend({
        holdId: reservation.holdId,
        expiresAtMs: nowMs + this.options.holdTtlMs,
        nowMs,
      });
      if (!outcome.ok)
        this.options.logger.warn({ holdId: reservation.holdId, outcome }, 'a long-running hold could not be extended');
      if (reservation.keyHeld) await this.options.keyBudget.extend(reservation.holdId);
    };
    const timer = setInterval(
      () =>
        void extend().catch((err: unknown) =>
          this.options.logger.warn({ err, holdId: reservation.holdId }, 'hold extension failed'),
        ),
      this.options.holdTtlMs / 2,
    );
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Posts a charge: settles its hold (or captures it from its lease), or, when the hold expired before that could
   * happen, charges the balance directly (what is there, the rest being the platform's loss). Idempotent by the
   * hold or capture id, so the journal can retry it. Throws only when the ledger is unreachable. `onHandedOff`:
   * the ledger's, for a capture (settle).
   */
  async post(pending: PendingCharge, onHandedOff?: () => void): Promise<Charge> {
    const nowMs = this.options.now();
    const { holdId, costMicros: amountMicros, usage } = pending;
    const settled =
      pending.capMicros === undefined
        ? await this.ledger.settle({ holdId, amountMicros, nowMs, usage })
        : await this.ledger.capture({
            id: `charge:${pending.requestId}`,
            holdId,
            amountMicros,
            capMicros: pending.capMicros,
            nowMs,
            usage,
            onHandedOff,
          });
    if (settled.ok)
      return this.charged(
        pending,
        'hold' in settled ? (settled.hold.postedMicros ?? 0n) : settled.transfer.postedMicros,
        settled,
      );
    // Expired before the charge came, or gone (a reservation is committed without waiting for the database's flush,
    // so a database crash can lose it), or a lease given back before its charge could land (it went to the journal):
    // the work was delivered, so the balance is charged directly.
    const leaseGone = pending.capMicros !== undefined && settled.reason === 'hold_not_pending';
    if (
      (settled.reason === 'hold_not_pending' && settled.status === 'expired') ||
      settled.reason === 'hold_not_found' ||
      leaseGone
    ) {
      this.options.logger.warn(
        { holdId: pending.holdId, reason: settled.reason },
        'no pending hold for a delivered charge; charging the balance',
      );
      const late = await this.ledger.debit({
        id: `late:${pending.requestId}`,
        accountId: pending.accountId,
        amountMicros: pending.costMicros,
        nowMs,
        memo: `charge of ${pending.holdId} after its hold expired`,
        usage: pending.usage,
        allowShortfall: true,
      });
      if (late.ok) return this.charged(pending, late.transfer.postedMicros, late);
    }
    // The hold was released, or its id reused: nothing can be charged, and it is a bug worth a page.
    this.options.logger.error({ holdId: pending.holdId, outcome: settled }, 'charge refused by the ledger');
    return { costMicros: 0n, costRubMicro: null, fxRateRubMicro: null, usageId: pending.usage.id };
  }

  private track(accountId: string, posting: Promise<Charge>): Promise<Charge> {
    let set = this.posting.get(accountId);
    if (!set) this.posting.set(accountId, (set = new Set()));
    set.add(posting);
    void posting.finally(() => {
      set.delete(posting);
      if (set.size === 0 && this.posting.get(accountId) === set) this.posting.delete(accountId);
    });
    return posting;
  }

  private charged(
    pending: PendingCharge,
    postedMicros: Micros,
    outcome: Extract<SettleOutcome | CaptureOutcome | TransferOutcome, { ok: true }>,
  ): Charge {
    if (outcome.lossMicros > 0n)
      this.options.onLoss({ requestId: pending.requestId, model: pending.usage.model, lossMicros: outcome.lossMicros });
    const usage = outcome.usage;
    return {
      costMicros: postedMicros,
      costRubMicro: usage?.costRubMicro ?? null,
      fxRateRubMicro: usage?.fxRateRubMicro ?? null,
      usageId: pending.usage.id,
    };
  }

  private async record(pending: PendingCharge, cause: unknown): Promise<void> {
    this.options.logger.error(
      { err: cause, holdId: pending.holdId },
      'charge not posted; recorded in the journal for retry',
    );
    try {
      await this.options.journal.put(pending);
    } catch (err) {
      // Neither the ledger nor the journal can be written: the hold expires and the call goes unbilled.
      this.options.logger.fatal(
        { err, holdId: pending.holdId, costMicros: String(pending.costMicros) },
        'charge lost: journal unwritable',
      );
    }
  }

  private pendingCharge(reservation: Reservation, costMicros: Micros, details: CallDetails): PendingCharge {
    const { principal, requestId } = reservation;
    const nowMs = this.options.now();
    const prompt = details.promptTokens ?? 0;
    const completion = details.completionTokens ?? 0;
    const usage: UsageLine = {
      id: newSortableId('log'),
      keyId: principal.keyId,
      requestId,
      model: details.model,
      kind: details.kind,
      endpoint: details.endpoint,
      promptTokens: prompt,
      completionTokens: completion,
      cachedTokens: details.cachedTokens ?? 0,
      reasoningTokens: details.reasoningTokens ?? 0,
      totalTokens: prompt + completion,
      billedInRub: principal.account.rubBilling,
      createdAtMs: nowMs,
      durationMs: nowMs - reservation.startedAtMs,
      metadata: details.metadata ?? {},
    };
    const cap = reservation.lease === null ? {} : { capMicros: reservation.amountMicros };
    return { holdId: reservation.holdId, requestId, accountId: principal.accountId, costMicros, ...cap, usage };
  }

  /** The request's own ledger hold, or 402 insufficient_balance. */
  private async holdOwn(holdId: string, accountId: string, amountMicros: Micros): Promise<void> {
    let outcome = await this.hold(holdId, accountId, amountMicros);
    // Refused while this process keeps money of the account in a lease: give that back and try once more.
    if (!outcome.ok && outcome.reason === 'insufficient_balance' && (await this.leases.reclaim(accountId)))
      outcome = await this.hold(holdId, accountId, amountMicros);
    if (!outcome.ok) {
      if (outcome.reason === 'insufficient_balance') throw insufficientBalance(amountMicros, outcome.availableMicros);
      throw new Error(`hold ${holdId} reused with a different amount`); // request ids are unique: a bug
    }
  }

  /** A hold of the request's own; the ledger unreachable is 503 billing_temporarily_unavailable (SPEC 7.2). */
  private async hold(holdId: string, accountId: string, amountMicros: Micros): Promise<HoldOutcome> {
    try {
      return await this.ledger.hold({
        id: holdId,
        accountId,
        amountMicros,
        nowMs: this.options.now(),
        ttlMs: this.options.holdTtlMs,
      });
    } catch (err) {
      if (err instanceof RangeError || err instanceof TypeError) throw err; // a bug of ours, not an outage
      this.options.logger.warn({ err }, 'ledger unreachable');
      throw new ApiError('billing_temporarily_unavailable');
    }
  }
}

/** SPEC 7.2 402, saying what the request needed and what the account had. */
function insufficientBalance(requiredMicros: Micros, availableMicros: Micros): ApiError {
  return new ApiError('insufficient_balance', undefined, {
    meta: { required_usd: microsToUsd(requiredMicros), available_usd: microsToUsd(availableMicros) },
  });
}

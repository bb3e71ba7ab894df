import type { Logger } from 'pino';
import type { Ledger, Micros, SettleOutcome, TransferOutcome, UsageLine } from '../adapters/ledger/index.js';
import type { ChargeJournal, PendingCharge } from '../adapters/charge-journal/index.js';
import type { UsageKind } from '../adapters/usage-log/index.js';
import { ApiError } from '../errors/api-error.js';
import type { Principal } from './authenticator.js';
import { newId } from './ids.js';
import { microsToUsd } from './money.js';

/** Money reserved for one request in flight (SPEC 4.2 pre-flight). */
export interface Reservation {
  holdId: string;
  requestId: string;
  principal: Principal;
  amountMicros: Micros;
  startedAtMs: number;
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
}

/**
 * The billing flows every paid operation uses: reserve the worst case, settle to the actual cost (never more than
 * the reservation) or release. The ledger being unreachable on the way in never means "serve and hope": the
 * request is refused with 503 billing_temporarily_unavailable before any work is done (SPEC 7.2). On the way out
 * the work is done, so a charge that cannot be posted is recorded in the journal and retried until it lands.
 *
 * A charge is known before it is written (what the work cost, capped at the hold), so the answer does not wait
 * for the write: it lands just after (README "Money and limits"). Reads of an account's money wait for its
 * charges in flight, so a caller always reads its own writes.
 */
export class Billing {
  /** Postings in flight, by account. */
  private readonly posting = new Map<string, Set<Promise<Charge>>>();

  constructor(
    private readonly ledger: Ledger,
    private readonly options: BillingOptions,
  ) {}

  async reserve(principal: Principal, requestId: string, estimateMicros: Micros): Promise<Reservation> {
    const holdId = `hold:${requestId}`;
    // A call can cost 0 (a few tokens on a cheap model, SPEC 2.2), but a hold is never empty: it still proves
    // the account can pay, and settling posts the real amount, 0 included.
    const amountMicros = estimateMicros > 0n ? estimateMicros : 1n;
    const nowMs = this.options.now();
    let outcome;
    try {
      outcome = await this.ledger.hold({ id: holdId, accountId: principal.accountId, amountMicros, nowMs, ttlMs: this.options.holdTtlMs });
    } catch (err) {
      if (err instanceof RangeError || err instanceof TypeError) throw err; // a bug of ours, not an outage
      this.options.logger.warn({ err }, 'ledger unreachable');
      throw new ApiError('billing_temporarily_unavailable');
    }
    if (!outcome.ok) {
      if (outcome.reason === 'insufficient_balance') {
        throw new ApiError('insufficient_balance', undefined, {
          meta: { required_usd: microsToUsd(amountMicros), available_usd: microsToUsd(outcome.availableMicros) },
        });
      }
      throw new Error(`hold ${holdId} reused with a different amount`); // request ids are unique: a bug
    }
    return { holdId, requestId, principal, amountMicros, startedAtMs: nowMs };
  }

  /**
   * Posts what the call cost, capped at the reservation, with its usage line in the same transaction. Resolves
   * with the charge at once, while the posting completes; for an account billed in rubles once it is posted (the
   * lots that pay decide `cost_rub`). Never throws: a charge the ledger cannot take goes to the journal.
   */
  async settle(reservation: Reservation, costMicros: Micros, details: CallDetails): Promise<Charge> {
    const pending = this.pendingCharge(reservation, costMicros, details);
    const capped = costMicros < reservation.amountMicros ? costMicros : reservation.amountMicros;
    const known: Charge = { costMicros: capped, costRubMicro: null, fxRateRubMicro: null, usageId: pending.usage.id };
    const posted = this.track(pending.accountId, this.post(pending).catch(async (err: unknown) => {
      await this.record(pending, err);
      return known;
    }));
    return reservation.principal.account.rubBilling ? posted : known;
  }

  /** Once every charge of the account started before the call has landed (or been journaled). */
  async settled(accountId: string): Promise<void> {
    await Promise.all([...(this.posting.get(accountId) ?? [])]);
  }

  /** Once every charge started so far has landed (shutdown). */
  async drain(): Promise<void> {
    await Promise.all([...this.posting.values()].flatMap((set) => [...set]));
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
    try {
      await this.ledger.release({ holdId: reservation.holdId, nowMs: this.options.now() });
    } catch (err) {
      this.options.logger.warn({ err, holdId: reservation.holdId }, 'release failed; the hold will expire');
    }
  }

  /**
   * Keeps a reservation alive while work that may outlast its TTL runs (a stream, DESIGN.md 4): extended every
   * half TTL, so it never expires under the work; call the returned function when the work ends.
   */
  keepAlive(reservation: Reservation): () => void {
    const extend = async () => {
      const nowMs = this.options.now();
      const outcome = await this.ledger.extend({ holdId: reservation.holdId, expiresAtMs: nowMs + this.options.holdTtlMs, nowMs });
      if (!outcome.ok) this.options.logger.warn({ holdId: reservation.holdId, outcome }, 'a long-running hold could not be extended');
    };
    const timer = setInterval(() => void extend().catch((err: unknown) => this.options.logger.warn({ err, holdId: reservation.holdId }, 'hold extension failed')), this.options.holdTtlMs / 2);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Posts a charge: settles its hold, or, when the hold expired before that could happen, charges the balance
   * directly (what is there, the rest being the platform's loss). Idempotent by the hold id, so the journal can
   * retry it. Throws only when the ledger is unreachable.
   */
  async post(pending: PendingCharge): Promise<Charge> {
    const nowMs = this.options.now();
    const settled = await this.ledger.settle({ holdId: pending.holdId, amountMicros: pending.costMicros, nowMs, usage: pending.usage });
    if (settled.ok) return this.charged(pending, settled.hold.postedMicros ?? 0n, settled);
    // Expired before the charge came, or gone (a reservation is committed without waiting for the database's flush,
    // so a database crash can lose it): the work was delivered, so the balance is charged directly.
    if ((settled.reason === 'hold_not_pending' && settled.status === 'expired') || settled.reason === 'hold_not_found') {
      this.options.logger.warn({ holdId: pending.holdId, reason: settled.reason }, 'no pending hold for a delivered charge; charging the balance');
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

  private charged(pending: PendingCharge, postedMicros: Micros, outcome: Extract<SettleOutcome | TransferOutcome, { ok: true }>): Charge {
    if (outcome.lossMicros > 0n) this.options.onLoss({ requestId: pending.requestId, model: pending.usage.model, lossMicros: outcome.lossMicros });
    const usage = outcome.usage;
    return { costMicros: postedMicros, costRubMicro: usage?.costRubMicro ?? null, fxRateRubMicro: usage?.fxRateRubMicro ?? null, usageId: pending.usage.id };
  }

  private async record(pending: PendingCharge, cause: unknown): Promise<void> {
    this.options.logger.error({ err: cause, holdId: pending.holdId }, 'charge not posted; recorded in the journal for retry');
    try {
      await this.options.journal.put(pending);
    } catch (err) {
      // Neither the ledger nor the journal can be written: the hold expires and the call goes unbilled.
      this.options.logger.fatal({ err, holdId: pending.holdId, costMicros: String(pending.costMicros) }, 'charge lost: journal unwritable');
    }
  }

  private pendingCharge(reservation: Reservation, costMicros: Micros, details: CallDetails): PendingCharge {
    const { principal, requestId } = reservation;
    const nowMs = this.options.now();
    const prompt = details.promptTokens ?? 0;
    const completion = details.completionTokens ?? 0;
    const usage: UsageLine = {
      id: newId('log'),
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
    return { holdId: reservation.holdId, requestId, accountId: principal.accountId, costMicros, usage };
  }
}

import type { Logger } from 'pino';
import type { Allocation, Ledger, Micros } from '../adapters/ledger/index.js';
import type { UsageKind, UsageRecord } from '../adapters/usage-log/index.js';
import { ApiError } from '../errors/api-error.js';
import type { Principal } from './authenticator.js';
import { newId } from './ids.js';
import { microsToUsd, usdMicrosToRubMicro } from './money.js';

/** Where billed calls are recorded (the batching usage-log writer). */
export interface UsageSink {
  record(record: UsageRecord): void;
}

/** Money reserved for one request in flight (SPEC 4.2 pre-flight). */
export interface Reservation {
  holdId: string;
  requestId: string;
  principal: Principal;
  amountMicros: Micros;
  startedAtMs: number;
}

/** What a billed call was, for its usage record (SPEC 2.6). */
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

export interface Charge {
  costMicros: Micros;
  /** Exact rubles from the lots that paid, when the account is billed in rubles (SPEC 4.3). */
  costRubMicro: bigint | null;
  fxRateRubMicro: bigint | null;
  usageId: string;
}

const SETTLE_ATTEMPTS = 3;

/** Reads the ledger for display; unreachable → 503 billing_temporarily_unavailable (SPEC 7.2), retryable. */
export async function readLedger<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch {
    throw new ApiError('billing_temporarily_unavailable');
  }
}

/** Σ allocation × its lot's rate: what the spend cost in rubles, exactly (DESIGN.md 3, FIFO lots). */
export function rublesOf(allocations: readonly Allocation[]): bigint {
  return allocations.reduce((sum, a) => sum + usdMicrosToRubMicro(a.amountMicros, a.fxRateRubMicro), 0n);
}

/**
 * The billing flows every paid operation uses: reserve the worst case, settle to the actual cost or release,
 * charge once per id. The ledger being unreachable never means "serve and hope": the request is refused
 * with 503 billing_temporarily_unavailable before any work is done (SPEC 7.2).
 */
export class Billing {
  constructor(
    private readonly ledger: Ledger,
    private readonly usage: UsageSink,
    private readonly options: { now: () => number; holdTtlMs: number; logger: Logger },
  ) {}

  async reserve(principal: Principal, requestId: string, estimateMicros: Micros): Promise<Reservation> {
    const holdId = `hold:${requestId}`;
    // A call can cost 0 (a few tokens on a cheap model, SPEC 2.2), but a hold is never empty: it still proves
    // the account can pay, and settling posts the real amount, 0 included.
    const amountMicros = estimateMicros > 0n ? estimateMicros : 1n;
    const nowMs = this.options.now();
    const outcome = await this.ledgerCall(() =>
      this.ledger.hold({ id: holdId, accountId: principal.accountId, amountMicros, nowMs, ttlMs: this.options.holdTtlMs }),
    );
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
   * Posts the actual cost (≤ the hold; anything above it is debited separately if the balance allows) and
   * records the call. Never throws: the work is done, so a ledger failure is logged, and the hold's expiry
   * releases the money: the caller is undercharged, never double-charged.
   */
  async settle(reservation: Reservation, costMicros: Micros, details: CallDetails): Promise<Charge> {
    const nowMs = this.options.now();
    const posted = costMicros < reservation.amountMicros ? costMicros : reservation.amountMicros;
    const allocations = await this.postHold(reservation, posted, nowMs);
    let charged = allocations === null ? 0n : posted;
    const all = [...(allocations ?? [])];
    if (costMicros > charged) {
      const extra = await this.debitQuietly(`over:${reservation.requestId}`, reservation.principal.accountId, costMicros - charged, nowMs);
      if (extra !== null) {
        charged += costMicros - charged;
        all.push(...extra);
      }
    }
    return this.recordUsage(reservation.principal, reservation.requestId, reservation.holdId, charged, all, details, nowMs - reservation.startedAtMs);
  }

  /** Gives the reservation back after a failure; a failed release is left to the expiry sweeper. */
  async release(reservation: Reservation): Promise<void> {
    try {
      await this.ledger.release({ holdId: reservation.holdId, nowMs: this.options.now() });
    } catch (err) {
      this.options.logger.warn({ err, holdId: reservation.holdId }, 'release failed; the hold will expire');
    }
  }

  private async postHold(reservation: Reservation, amountMicros: Micros, nowMs: number): Promise<Allocation[] | null> {
    for (let attempt = 1; attempt <= SETTLE_ATTEMPTS; attempt++) {
      try {
        const outcome = await this.ledger.settle({ holdId: reservation.holdId, amountMicros, nowMs });
        if (outcome.ok) return outcome.hold.allocations;
        if (outcome.reason === 'hold_not_pending') {
          // The hold expired while the work ran: charge directly instead, if the money is still there.
          return this.debitQuietly(`late:${reservation.requestId}`, reservation.principal.accountId, amountMicros, nowMs);
        }
        this.options.logger.error({ holdId: reservation.holdId, reason: outcome.reason }, 'settle refused');
        return null;
      } catch (err) {
        if (attempt === SETTLE_ATTEMPTS) this.options.logger.error({ err, holdId: reservation.holdId }, 'settle failed; the hold will expire');
      }
    }
    return null;
  }

  private async debitQuietly(id: string, accountId: string, amountMicros: Micros, nowMs: number): Promise<Allocation[] | null> {
    try {
      const outcome = await this.ledger.debit({ id, accountId, amountMicros, nowMs });
      if (outcome.ok) return outcome.transfer.allocations;
      this.options.logger.warn({ id, reason: outcome.reason }, 'could not charge beyond the hold');
    } catch (err) {
      this.options.logger.error({ err, id }, 'debit failed');
    }
    return null;
  }

  private recordUsage(
    principal: Principal,
    requestId: string,
    transferId: string,
    costMicros: Micros,
    allocations: readonly Allocation[],
    details: CallDetails,
    durationMs: number,
  ): Charge {
    const billedInRub = principal.account.rubBilling;
    const costRubMicro = billedInRub ? rublesOf(allocations) : null;
    const fxRateRubMicro = costRubMicro !== null && costMicros > 0n ? (costRubMicro * 1_000_000n + costMicros / 2n) / costMicros : null;
    const prompt = details.promptTokens ?? 0;
    const completion = details.completionTokens ?? 0;
    const usageId = newId('log');
    this.usage.record({
      id: usageId,
      accountId: principal.accountId,
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
      costMicros,
      transferId,
      billedInRub,
      costRubMicro,
      fxRateRubMicro,
      createdAtMs: this.options.now(),
      durationMs,
      metadata: details.metadata ?? {},
    });
    return { costMicros, costRubMicro, fxRateRubMicro, usageId };
  }

  /** Any infrastructure failure of the ledger on the way in is 503 billing_temporarily_unavailable (SPEC 7.2). */
  private async ledgerCall<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (err) {
      if (err instanceof RangeError || err instanceof TypeError) throw err; // a bug of ours, not an outage
      this.options.logger.warn({ err }, 'ledger unreachable');
      throw new ApiError('billing_temporarily_unavailable');
    }
  }
}

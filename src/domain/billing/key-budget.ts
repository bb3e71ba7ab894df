import type { Logger } from 'pino';
import type { ApiKeyRecord, KeySpendLimit } from '../../adapters/api-keys/index.js';
import type { KeyBudgetStore, KeySpend } from '../../adapters/key-budget/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { Principal } from '../keys/authenticator.js';
import { spendPeriodBounds } from '../keys/spend-period.js';
import { type Micros, microsToUsd } from './money.js';

/**
 * A key's spend limit, enforced by the pre-flight hold like the balance (issue 26 item 6, docs/money.md "Key spend
 * limits"): a request of a limited key first takes a key hold of its worst case, refused with 402
 * `key_spend_limit_reached` when the key's period has no room left; the hold is released once the charge has
 * landed (or the request failed). Keys without a limit never come here: their hot path is unchanged.
 */
export class KeyBudget {
  constructor(
    private readonly store: KeyBudgetStore,
    private readonly options: { now: () => number; holdTtlMs: number; logger: Logger },
  ) {}

  /** Holds `amountMicros` of the key's period under `holdId`; the store unreachable is 503 (SPEC 7.2). */
  async reserve(principal: Principal, limit: KeySpendLimit, holdId: string, amountMicros: Micros): Promise<void> {
    const nowMs = this.options.now();
    const period = spendPeriodBounds(limit.period, nowMs);
    let outcome: Awaited<ReturnType<KeyBudgetStore['reserve']>>;
    try {
      outcome = await this.store.reserve({
        accountId: principal.accountId,
        keyId: principal.keyId,
        holdId,
        amountMicros,
        limitMicros: limit.amountMicros,
        periodStartMs: period.startMs,
        nowMs,
        expiresAtMs: nowMs + this.options.holdTtlMs,
      });
    } catch (err) {
      this.options.logger.warn({ err }, 'key budget unreachable');
      throw new ApiError('billing_temporarily_unavailable');
    }
    if (!outcome.ok) throw limitReached(limit, outcome, period.endMs);
  }

  /** Keeps a hold alive as the ledger hold it shadows is kept alive (Billing.keepAlive). */
  async extend(holdId: string): Promise<void> {
    await this.store.extend(holdId, this.options.now() + this.options.holdTtlMs);
  }

  /** A failed release leaves the hold to expire: until then it counts, which is never an over-spend. */
  async release(holdId: string): Promise<void> {
    try {
      await this.store.release(holdId);
    } catch (err) {
      this.options.logger.warn({ err, holdId }, 'key hold release failed; it will expire');
    }
  }

  /** Where the key stands in its current period, for the dashboard (ApiKey schema); null without a limit. */
  async standing(key: ApiKeyRecord): Promise<KeyStanding | null> {
    if (key.spendLimit === null) return null;
    const nowMs = this.options.now();
    const { startMs, endMs } = spendPeriodBounds(key.spendLimit.period, nowMs);
    const used = await this.store.spend({ accountId: key.accountId, keyId: key.id, sinceMs: startMs, nowMs });
    const left = key.spendLimit.amountMicros - used.spentMicros - used.heldMicros;
    return { remainingMicros: left > 0n ? left : 0n, resetsAtMs: endMs };
  }
}

/** What a limited key may still spend this period (its limit less charged and held), and when the period ends. */
export interface KeyStanding {
  remainingMicros: Micros;
  resetsAtMs: number;
}

/** 402 naming the limit, what the key used of it and when the period resets. */
function limitReached(limit: KeySpendLimit, used: KeySpend, resetsAtMs: number): ApiError {
  const resetsAt = new Date(resetsAtMs).toISOString();
  const message =
    `This API key reached its spend limit of $${microsToUsd(limit.amountMicros)} per ${limit.period} (UTC); ` +
    `it resets at ${resetsAt}`;
  return new ApiError('key_spend_limit_reached', message, {
    meta: {
      limit_usd: microsToUsd(limit.amountMicros),
      spent_usd: microsToUsd(used.spentMicros),
      held_usd: microsToUsd(used.heldMicros),
      period: limit.period,
      resets_at: resetsAt,
    },
  });
}

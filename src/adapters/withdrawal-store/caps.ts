import type { CapRefusal, WithdrawalCaps } from './index.js';

/** Σ amount + fee of active withdrawals: the account's of all time and since the day began, and everyone's today. */
export interface ActiveSums {
  accountTotalMicros: bigint;
  accountDailyMicros: bigint;
  globalDailyMicros: bigint;
}

/**
 * The first cap that `requestedMicros` (amount + fee) would pass, in the port's order (account total, account daily,
 * global daily), with what that cap still allows; null when all of them leave room.
 */
export function firstExceededCap(sums: ActiveSums, requestedMicros: bigint, caps: WithdrawalCaps): CapRefusal | null {
  const checks = [
    ['account_total', sums.accountTotalMicros, caps.accountTotalMicros],
    ['account_daily', sums.accountDailyMicros, caps.accountDailyMicros],
    ['global_daily', sums.globalDailyMicros, caps.globalDailyMicros],
  ] as const;
  for (const [reason, used, cap] of checks) {
    if (used + requestedMicros > cap) {
      const remaining = cap - used;
      return { ok: false, reason, remainingMicros: remaining > 0n ? remaining : 0n };
    }
  }
  return null;
}

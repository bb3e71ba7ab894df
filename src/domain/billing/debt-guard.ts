import { ApiError } from '../../errors/api-error.js';
import { microsToUsd } from './money.js';

/**
 * 402 `account_in_debt` while the account owes what a refund or a lost dispute took back (payments/debts.ts). Read
 * from the account record the request was authenticated with, so it costs the hot path nothing.
 */
export function assertNoDebt(account: { debtMicros: bigint }): void {
  if (account.debtMicros > 0n)
    throw new ApiError('account_in_debt', undefined, { meta: { debt_usd: microsToUsd(account.debtMicros) } });
}

/**
 * Per-account caps on what costs the platform without being paid for (issue rule "scarce resources cost something
 * or expire"): rentals pending (their GPUs and SSH ports held, nothing billed until the agent runs them) and machines
 * listed without an operator's verification (any account can register one, and offers show it). Checked before the
 * write: requests racing each other can pass the cap by at most their own number, which the rate limits bound.
 */
import type { MarketStore } from '../../adapters/market-store/index.js';
import { ApiError } from '../../errors/api-error.js';

/** 409 `too_many_pending_rentals` when `adding` more pending rentals would pass the account's cap. */
export async function requirePendingRoom(store: MarketStore, accountId: string, adding: number, max: number): Promise<void> {
  const pending = await store.pendingCount(accountId);
  if (pending + adding <= max) return;
  throw new ApiError('too_many_pending_rentals', `This account has ${pending} rentals waiting for their machine to run them; at most ${max} may wait at once`, {
    meta: { pending_rentals: pending, max_pending_rentals: max, hint: 'Wait until they run, or stop or delete some; a rental not run in time stops by itself' },
  });
}

/** 409 `too_many_unverified_machines` when listing one more unverified machine would pass the provider's cap. */
export async function requireUnverifiedRoom(store: MarketStore, providerAccountId: string, max: number): Promise<void> {
  const listed = (await store.listMachines(providerAccountId)).filter((m) => m.listed && m.verification !== 'verified').length;
  if (listed < max) return;
  throw new ApiError('too_many_unverified_machines', `This account lists ${listed} machines no operator has verified; at most ${max} may be listed unverified`, {
    meta: { unverified_listed: listed, max_unverified_listed: max, hint: 'Register it unlisted (listed: false), or ask an operator to verify your machines' },
  });
}

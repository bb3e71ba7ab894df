/**
 * Per-account caps on what costs the platform without being paid for (issue rule "scarce resources cost something
 * or expire"): rentals pending (their GPUs and SSH ports held, nothing billed until the agent runs them) and machines
 * listed without an operator's verification (any account can register one, and offers show it). Checked before the
 * write; a placement also counts again after its insert and is undone past the cap (`overPendingCap`), so racing
 * rentals never pass it. Machines racing each other can pass theirs by at most their own number.
 */
import type { MarketStore } from '../../adapters/market-store/index.js';
import { ApiError } from '../../errors/api-error.js';

/** 409 `too_many_pending_rentals` when `adding` more pending rentals would pass the account's cap. */
export async function requirePendingRoom(
  store: MarketStore,
  accountId: string,
  adding: number,
  max: number,
): Promise<void> {
  const pending = await store.pendingCount(accountId);
  if (pending + adding > max) throw tooManyPending(pending, max);
}

/**
 * After a placement's insert: the error to undo it with when the account's pending rentals, this one included, are
 * past the cap (placements racing the check above; on PostgreSQL each may see the others and all be undone, never
 * all kept), else null.
 */
export async function overPendingCap(store: MarketStore, accountId: string, max: number): Promise<ApiError | null> {
  const pending = await store.pendingCount(accountId);
  return pending > max ? tooManyPending(pending - 1, max) : null;
}

function tooManyPending(pending: number, max: number): ApiError {
  return new ApiError(
    'too_many_pending_rentals',
    `This account has ${pending} rentals waiting for their machine to run them; at most ${max} may wait at once`,
    {
      meta: {
        pending_rentals: pending,
        max_pending_rentals: max,
        hint: 'Wait until they run, or stop or delete some; a rental not run in time stops by itself',
      },
    },
  );
}

/** 409 `too_many_unverified_machines` when listing one more unverified machine would pass the provider's cap. */
export async function requireUnverifiedRoom(store: MarketStore, providerAccountId: string, max: number): Promise<void> {
  const listed = (await store.listMachines(providerAccountId)).filter(
    (m) => m.listed && m.verification !== 'verified',
  ).length;
  if (listed < max) return;
  throw new ApiError(
    'too_many_unverified_machines',
    `This account lists ${listed} machines no operator has verified; at most ${max} may be listed unverified`,
    {
      meta: {
        unverified_listed: listed,
        max_unverified_listed: max,
        hint: 'Register it unlisted (listed: false), or ask an operator to verify your machines',
      },
    },
  );
}

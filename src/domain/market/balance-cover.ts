/**
 * "The balance must cover X" without a check-then-insert (DESIGN.md 3 "Balance runs out"; issue 23 item 6). Reading
 * the balance and then inserting lets twenty parallel requests each see the same balance and each insert; so a rule
 * of the form "creating one needs N of it and of the account's others available" is enforced with a ledger hold,
 * which is atomic per account on every engine (ledger README, invariant 2):
 *
 *  1. hold what the new resource needs (a short-lived reservation, named `cover:…`);
 *  2. read the balance, then what the account's resources already there need, and require the available balance
 *     (the reservation already out of it) to cover them;
 *  3. insert, then release the reservation.
 *
 * Two creations that overlap hold at the same time, so the balance covered both reservations at once; two that do
 * not overlap are ordered, and the later one's step 2 sees the earlier one's insert. Either way the account never
 * gets more than its balance covers. A creation whose reservation or check fails while other money of the account is
 * held (another creation in flight may be counted twice, held and inserted) is tried again a few times before it is
 * refused, so a burst creates as many as the balance covers, not fewer.
 */
import type { Ledger, Micros } from '../../adapters/ledger/index.js';
import type { ApiError } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';

export interface CoverRule {
  accountId: string;
  /** What the new resource needs for itself: held while it is created. */
  ownMicros: Micros;
  /** What the account's resources already there need (read after the reservation). */
  existingMicros(): Promise<Micros>;
  /** The 402 to answer when the balance cannot cover it all. */
  refuse(needMicros: Micros, availableMicros: Micros): ApiError;
}

/** A reservation left by a process that died before releasing it goes back to the balance after this. */
const RESERVATION_TTL_MS = 60_000;
const ATTEMPTS = 6;
const BACKOFF_MS = 10;

/** Runs `insert` only while the balance is shown to cover the rule, the new resource's part held; see above. */
export async function insertCovered<T>(
  ledger: Ledger,
  now: () => number,
  rule: CoverRule,
  insert: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const holdId = newId('cover');
    const shortfall = await reserve(ledger, now, rule, holdId);
    if (shortfall === null) {
      try {
        return await insert();
      } finally {
        await release(ledger, holdId, now);
      }
    }
    const { heldMicros } = await ledger.getBalance(rule.accountId);
    if (heldMicros === 0n || attempt === ATTEMPTS) throw rule.refuse(shortfall.needMicros, shortfall.availableMicros);
    await new Promise((resolve) => setTimeout(resolve, BACKOFF_MS * attempt * (0.5 + Math.random())));
  }
}

/** Steps 1 and 2: null when covered (the reservation stays), else what was needed and available (nothing kept). */
async function reserve(
  ledger: Ledger,
  now: () => number,
  rule: CoverRule,
  holdId: string,
): Promise<{ needMicros: Micros; availableMicros: Micros } | null> {
  const own = rule.ownMicros;
  if (own > 0n) {
    const held = await ledger.hold({
      id: holdId,
      accountId: rule.accountId,
      amountMicros: own,
      nowMs: now(),
      ttlMs: RESERVATION_TTL_MS,
    });
    if (!held.ok)
      return {
        needMicros: own + (await rule.existingMicros()),
        availableMicros: held.reason === 'insufficient_balance' ? held.availableMicros : 0n,
      };
  }
  // The balance first, then the others: one that was inserted after this read was still reserved during it.
  const { availableMicros } = await ledger.getBalance(rule.accountId);
  const existing = await rule.existingMicros();
  if (availableMicros >= existing) return null;
  if (own > 0n) await release(ledger, holdId, now);
  return { needMicros: own + existing, availableMicros: availableMicros + own };
}

/** A release that fails leaves the reservation to expire after RESERVATION_TTL_MS: the money is back later, never lost. */
async function release(ledger: Ledger, holdId: string, now: () => number): Promise<void> {
  await ledger.release({ holdId, nowMs: now() }).catch(() => undefined);
}

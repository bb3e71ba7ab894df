/**
 * The holds term rentals (day, week, month) run on (DESIGN.md 3 "Rentals: plans"; issue 23 item 12). A term's
 * remaining price is held at start until the term could end plus a day; but a rental can wait `pending` or `offline`
 * for any length of time without using its term, so a hold fixed at start could expire under it, and every charge
 * after that would come out of whatever the balance has left. The sweeper therefore checks each term rental's hold
 * every RENEW_EVERY_MS: one still standing that covers what is left of the term's price is extended to outlive the
 * rest of the term again; one gone or short is replaced by a new hold of the whole rest; when the balance cannot pay
 * for that, the rental is stopped (`insufficient_balance`).
 */
import type { Ledger, Micros } from '../../adapters/ledger/index.js';
import type { InstanceRecord, MarketStore } from '../../adapters/market-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { microsToUsd } from '../billing/money.js';
import { owedFor } from './plans.js';

/** A hold lives past the rest of its term by this much: a late settlement still finds it. */
const HOLD_SLACK_MS = 24 * 60 * 60 * 1000;
/** How often a hold is checked: well within its slack, so it never comes within a day of the term's end. */
const RENEW_EVERY_MS = HOLD_SLACK_MS / 2;
const RENEW_BATCH = 500;

export interface TermHoldDeps {
  store: MarketStore;
  ledger: Ledger;
  /** Stops a rental whose term the balance can no longer hold. */
  stopUnpaid(rental: InstanceRecord, nowMs: number): Promise<unknown>;
}

/** When a hold taken (or renewed) at `nowMs` is next checked. */
export const renewAt = (nowMs: number): number => nowMs + RENEW_EVERY_MS;

/** What is left to pay of a term rental's price. */
const unpaid = (i: InstanceRecord): Micros => owedFor(i, i.termMs ?? 0) - i.chargedMicros;
/** The running time left of its term, at most: the hold must outlive it. */
const termLeftMs = (i: InstanceRecord): number => Math.max(0, (i.termMs ?? 0) - i.settledRunningMs);

/**
 * Holds a term's remaining price until the term could end, plus a day: 402 when the balance is short. Every hold is
 * new (never a replay of one a failed start released), so a rental never runs on a hold that is gone.
 */
export async function holdTerm(
  ledger: Ledger,
  accountId: string,
  amountMicros: Micros,
  remainingMs: number,
  nowMs: number,
): Promise<string> {
  const holdId = newId('rhold');
  const held = await ledger.hold({ id: holdId, accountId, amountMicros, nowMs, ttlMs: remainingMs + HOLD_SLACK_MS });
  if (!held.ok) throw insufficient(amountMicros, held.reason === 'insufficient_balance' ? held.availableMicros : 0n);
  return holdId;
}

function insufficient(needMicros: Micros, availableMicros: Micros): ApiError {
  return new ApiError(
    'insufficient_balance',
    `Starting this rental needs $${microsToUsd(needMicros)} available; the balance has $${microsToUsd(availableMicros)}`,
  );
}

/** The sweeper's part: every term rental whose hold is due for its check. */
export async function renewTermHolds(
  deps: TermHoldDeps,
  nowMs: number,
  onUnexpected: (err: unknown) => void,
): Promise<void> {
  for (const rental of await deps.store.holdsToRenew(nowMs, RENEW_BATCH)) {
    try {
      await renewOne(deps, rental, nowMs);
    } catch (err) {
      onUnexpected(err);
    }
  }
}

async function renewOne(deps: TermHoldDeps, rental: InstanceRecord, nowMs: number): Promise<void> {
  const { ledger, store } = deps;
  const holdId = rental.holdId!;
  const hold = await ledger.getHold(holdId);
  const due = unpaid(rental);
  const standing = hold !== null && hold.status === 'pending' && hold.expiresAtMs > nowMs;
  if (standing && hold.amountMicros >= due) {
    const extended = await ledger.extend({ holdId, expiresAtMs: nowMs + termLeftMs(rental) + HOLD_SLACK_MS, nowMs });
    if (extended.ok) await store.change(rental.id, rental.version, { patch: { holdRenewAtMs: renewAt(nowMs) } });
    return; // a hold that expired meanwhile is replaced at the next sweep
  }
  let fresh: string | null = null;
  if (due > 0n) {
    try {
      fresh = await holdTerm(ledger, rental.accountId, due, termLeftMs(rental), nowMs);
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      await deps.stopUnpaid(rental, nowMs);
      return;
    }
  }
  const swapped = await store.change(rental.id, rental.version, {
    patch: { holdId: fresh, holdRenewAtMs: fresh === null ? null : renewAt(nowMs) },
  });
  const giveBack = swapped.ok ? (standing ? holdId : null) : fresh;
  if (giveBack !== null) await ledger.release({ holdId: giveBack, nowMs });
}

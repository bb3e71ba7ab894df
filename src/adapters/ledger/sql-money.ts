/**
 * The statements that move money in the SQL ledger: balance rows and lots. Every function runs inside the
 * caller's transaction and follows the lock order of README.md (user balance → user lots → system balance).
 */
import type { Knex } from 'knex';
import { lotDeltas, planConsumption, planRestore } from './allocation-plan.js';
import type { Allocation, Micros } from './index.js';
import { big, micros, type Tx } from './sql-rows.js';

/**
 * The only way a user's available balance goes down: conditional in the same statement, so concurrent callers
 * cannot both pass a check that only one of them can afford. `toHeld` moves the amount into held (a hold)
 * rather than out of the account (a debit). False when the money is not there (or the account does not exist).
 */
export async function takeAvailable(tx: Tx, accountId: string, amount: Micros, toHeld: boolean): Promise<boolean> {
  const changed = await tx.q('ledger_balances')
    .where('account_id', accountId)
    .andWhere('available_micros', '>=', big(amount))
    .update({
      available_micros: tx.q.raw('available_micros - ?', [big(amount)]),
      held_micros: tx.q.raw('held_micros + ?', [big(toHeld ? amount : 0n)]),
    });
  return changed === 1;
}

export async function readAvailable(q: Knex | Knex.Transaction, accountId: string): Promise<Micros> {
  const row = (await q('ledger_balances').select('available_micros').where('account_id', accountId).first()) as
    | { available_micros: number | bigint }
    | undefined;
  return row ? micros(row.available_micros) : 0n;
}

/** Ends a hold on the balance: `held` leaves held, of which `back` returns to available (the rest was posted). */
export async function unhold(tx: Tx, accountId: string, held: Micros, back: Micros): Promise<void> {
  const changed = await tx.q('ledger_balances')
    .where('account_id', accountId)
    .andWhere('held_micros', '>=', big(held))
    .update({
      held_micros: tx.q.raw('held_micros - ?', [big(held)]),
      available_micros: tx.q.raw('available_micros + ?', [big(back)]),
    });
  if (changed !== 1) throw new Error(`ledger: ${accountId} holds less than its pending hold of ${held} micros`);
}

/** Adds (or, for system accounts, subtracts) money, creating the balance row on first use. */
export async function addAvailable(tx: Tx, accountId: string, delta: Micros): Promise<void> {
  if (delta === 0n) return;
  await tx.q('ledger_balances')
    .insert({ account_id: accountId, available_micros: big(delta), held_micros: 0 })
    .onConflict('account_id')
    .merge({ available_micros: tx.q.raw('ledger_balances.available_micros + excluded.available_micros') });
}

/** `CASE <idColumn> WHEN ? THEN ? … END` over a map: one statement updates many rows by different amounts. */
function caseById(q: Knex.Transaction, idColumn: string, values: ReadonlyMap<string, Micros>): Knex.Raw {
  const whens = [...values.keys()].map(() => 'WHEN ? THEN CAST(? AS BIGINT)').join(' ');
  const bindings = [...values].flatMap(([id, v]) => [id, big(v)]);
  // CAST: pg cannot infer a type for a parameter that only appears in a THEN.
  return q.raw(`CASE ?? ${whens} END`, [idColumn, ...bindings]);
}

/** Pending holds whose time is up: their whole amount leaves held for available, per account, in one statement. */
export async function releaseHeld(tx: Tx, byAccount: ReadonlyMap<string, Micros>): Promise<void> {
  const ids = [...byAccount.keys()].sort();
  if (ids.length === 0) return;
  // Lock in account order first, so two sweepers (or a sweeper and a settle) never wait on each other in a cycle.
  if (tx.kind === 'postgres') await tx.q('ledger_balances').select('account_id').whereIn('account_id', ids).orderBy('account_id').forUpdate();
  const delta = caseById(tx.q, 'account_id', byAccount);
  await tx.q('ledger_balances')
    .whereIn('account_id', ids)
    .update({ held_micros: tx.q.raw('held_micros - ?', [delta]), available_micros: tx.q.raw('available_micros + ?', [delta]) });
}

async function applyLots(tx: Tx, plan: readonly Allocation[]): Promise<void> {
  const deltas = lotDeltas(plan);
  if (deltas.size === 0) return;
  await tx.q('ledger_lots')
    .whereIn('id', [...deltas.keys()])
    .update({ remaining_micros: tx.q.raw('remaining_micros + ?', [caseById(tx.q, 'id', deltas)]) });
}

async function insertAllocations(tx: Tx, transferId: string, plan: readonly Allocation[]): Promise<void> {
  if (plan.length === 0) return;
  await tx.q('ledger_allocations').insert(
    plan.map((a, seq) => ({
      transfer_id: transferId,
      seq,
      lot_id: a.lotId,
      amount_micros: big(a.amountMicros),
      fx_rate_rub_micro: big(a.fxRateRubMicro),
    })),
  );
}

/**
 * Posted spend takes money from the account's lots, oldest first, and records which lots paid. On PostgreSQL
 * the lots are locked in spending order; the balance row, locked earlier by the same operation, already
 * serialises spenders of one account, so this is defence in depth for any future path that skips it.
 */
export async function consumeLots(tx: Tx, accountId: string, transferId: string, amount: Micros): Promise<Allocation[]> {
  if (amount === 0n) return [];
  const query = tx.q('ledger_lots')
    .select('id', 'remaining_micros', 'fx_rate_rub_micro')
    .where('account_id', accountId)
    .andWhereRaw('remaining_micros > 0') // a literal, so the partial spending-order index applies
    .orderBy([{ column: 'created_at_ms' }, { column: 'seq' }]);
  if (tx.kind === 'postgres') void query.forUpdate();
  const rows = (await query) as { id: string; remaining_micros: number | bigint; fx_rate_rub_micro: number | bigint }[];
  const lots = rows.map((r) => ({ id: r.id, remainingMicros: micros(r.remaining_micros), fxRateRubMicro: micros(r.fx_rate_rub_micro) }));
  const plan = planConsumption(accountId, lots, amount);
  await applyLots(tx, plan);
  await insertAllocations(tx, transferId, plan);
  return plan;
}

/**
 * A refund gives money back to the lots that paid for `refundOf`, most recently consumed first, net of its
 * earlier refunds. The caller has locked and updated the refunded row, so refunds of one transfer are serial
 * and the earlier refunds read here are complete.
 */
export async function restoreLots(tx: Tx, refundOf: string, refundId: string, amount: Micros): Promise<Allocation[]> {
  const rows = (await tx.q('ledger_allocations as a')
    .join('ledger_transfers as t', 't.id', 'a.transfer_id')
    .select('a.transfer_id', 'a.lot_id', 'a.amount_micros', 'a.fx_rate_rub_micro')
    .where('t.id', refundOf)
    .orWhere('t.refund_of', refundOf)
    .orderBy([{ column: 'a.transfer_id' }, { column: 'a.seq' }])) as {
    transfer_id: string;
    lot_id: string;
    amount_micros: number | bigint;
    fx_rate_rub_micro: number | bigint;
  }[];
  const consumed: Allocation[] = [];
  const earlier: Allocation[] = [];
  for (const r of rows) {
    const a = { lotId: r.lot_id, amountMicros: micros(r.amount_micros), fxRateRubMicro: micros(r.fx_rate_rub_micro) };
    (r.transfer_id === refundOf ? consumed : earlier).push(a);
  }
  const plan = planRestore(consumed, earlier, amount);
  await applyLots(tx, plan);
  await insertAllocations(tx, refundId, plan);
  return plan;
}

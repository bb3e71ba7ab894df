import type { Knex } from 'knex';
import type { Database, DatabaseKind } from '../../db/connect.js';
import {
  assertAmount,
  assertLot,
  assertTtl,
  decideRelease,
  decideSettle,
  expiredAnswer,
  isRefundable,
  isSameRequest,
  isTransfer,
  newEntry,
  refundableMicros,
  toHold,
  toTransfer,
  type Entry,
  type ReplayKey,
} from './entries.js';
import {
  SYSTEM_ACCOUNTS,
  type Balance,
  type Hold,
  type HoldOutcome,
  type Ledger,
  type Lot,
  type LotSpec,
  type Micros,
  type ReleaseOutcome,
  type SettleOutcome,
  type Transfer,
  type TransferOutcome,
} from './index.js';
import { addAvailable, consumeLots, readAvailable, releaseHeld, restoreLots, takeAvailable, unhold } from './sql-money.js';
import { big, insertEntry, LOT_COLUMNS, loadEntry, loadLotSpec, micros, toLot, type EntryRow, type LotRow, type Tx } from './sql-rows.js';

/** Thrown inside a transaction to roll it back and answer with a business outcome instead of an error. */
class Rollback extends Error {
  constructor(readonly outcome: unknown) {
    super('ledger: rolled back with an outcome');
  }
}

/** Pending holds expired per sweeper transaction: keeps each transaction (and its locks) short. */
const EXPIRY_BATCH = 500;

/**
 * The ledger port over knex, on SQLite and PostgreSQL alike (README.md; schema in migration 0002). Each call is
 * one short transaction; the caller owns the `Database` and closes it.
 */
export class SqlLedger implements Ledger {
  private readonly knex: Knex;
  private readonly kind: DatabaseKind;

  constructor(db: Database) {
    this.knex = db.knex;
    this.kind = db.kind;
  }

  async hold(input: { id: string; accountId: string; amountMicros: Micros; nowMs: number; ttlMs: number }): Promise<HoldOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    assertTtl(input.ttlMs);
    const e = newEntry(input, 'hold', { status: 'pending', postedMicros: null, expiresAtMs: input.nowMs + input.ttlMs, postedAtMs: null });
    return this.transaction<HoldOutcome>(async (tx) => {
      if (!(await insertEntry(tx, e))) {
        const existing = await this.existing(tx, e.id, { kind: 'hold', accountId: e.accountId, amountMicros: e.amountMicros });
        return existing ? { ok: true, hold: toHold(existing), replayed: true } : { ok: false, reason: 'idempotency_conflict' };
      }
      if (!(await takeAvailable(tx, e.accountId, e.amountMicros, true))) await this.insufficient(tx, e.accountId);
      return { ok: true, hold: toHold(e), replayed: false };
    });
  }

  async settle(input: { holdId: string; amountMicros: Micros; nowMs: number }): Promise<SettleOutcome> {
    assertAmount('amountMicros', input.amountMicros, true);
    return this.transaction<SettleOutcome>(async (tx) => {
      const decision = decideSettle(await loadEntry(tx.q, input.holdId, tx.kind), input.amountMicros, input.nowMs);
      if (decision.act === 'answer') return decision.outcome;
      const e = decision.entry;
      if (decision.act === 'expire') {
        await this.resolve(tx, e, 'expired', input.nowMs);
        return expiredAnswer();
      }
      const posted = input.amountMicros;
      await tx.q('ledger_transfers')
        .where('id', e.id)
        .update({ status: 'posted', posted_micros: big(posted), spend_micros: big(posted), resolved_at_ms: input.nowMs, posted_at_ms: input.nowMs });
      await unhold(tx, e.accountId, e.amountMicros, e.amountMicros - posted);
      const allocations = await consumeLots(tx, e.accountId, e.id, posted);
      await addAvailable(tx, SYSTEM_ACCOUNTS.revenue, posted); // last: the hot row is locked for the shortest time
      const at = input.nowMs;
      const settled: Entry = { ...e, status: 'posted', postedMicros: posted, spendMicros: posted, resolvedAtMs: at, postedAtMs: at, allocations };
      return { ok: true, hold: toHold(settled), replayed: false };
    });
  }

  async release(input: { holdId: string; nowMs: number }): Promise<ReleaseOutcome> {
    return this.transaction<ReleaseOutcome>(async (tx) => {
      const decision = decideRelease(await loadEntry(tx.q, input.holdId, tx.kind), input.nowMs);
      if (decision.act === 'answer') return decision.outcome;
      if (decision.act === 'expire') {
        await this.resolve(tx, decision.entry, 'expired', input.nowMs);
        return expiredAnswer();
      }
      await this.resolve(tx, decision.entry, 'voided', input.nowMs);
      return { ok: true, hold: toHold({ ...decision.entry, status: 'voided', resolvedAtMs: input.nowMs }), replayed: false };
    });
  }

  async expireHolds(nowMs: number): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await this.transaction((tx) => this.expireBatch(tx, nowMs));
      total += expired;
      if (expired < EXPIRY_BATCH) return total;
    }
  }

  async debit(input: { id: string; accountId: string; amountMicros: Micros; nowMs: number; memo?: string }): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    const e = newEntry(input, 'debit', { spendMicros: input.amountMicros });
    return this.transaction<TransferOutcome>(async (tx) => {
      if (!(await insertEntry(tx, e))) return this.replayTransfer(tx, e.id, { kind: 'debit', accountId: e.accountId, amountMicros: e.amountMicros });
      if (!(await takeAvailable(tx, e.accountId, e.amountMicros, false))) await this.insufficient(tx, e.accountId);
      const allocations = await consumeLots(tx, e.accountId, e.id, e.amountMicros);
      await addAvailable(tx, SYSTEM_ACCOUNTS.revenue, e.amountMicros);
      return { ok: true, transfer: toTransfer({ ...e, kind: 'debit', allocations }), replayed: false };
    });
  }

  async credit(input: { id: string; accountId: string; amountMicros: Micros; lot: LotSpec; nowMs: number; memo?: string }): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    assertLot(input.lot);
    const e = newEntry(input, 'credit');
    const key: ReplayKey = { kind: 'credit', accountId: e.accountId, amountMicros: e.amountMicros, lot: input.lot };
    return this.transaction<TransferOutcome>(async (tx) => {
      if (!(await insertEntry(tx, e))) return this.replayTransfer(tx, e.id, key);
      await addAvailable(tx, e.accountId, e.amountMicros);
      await tx.q('ledger_lots').insert({
        id: e.id, // a credit's lot carries the credit's id (README.md)
        account_id: e.accountId,
        currency: input.lot.currency,
        amount_micros: big(e.amountMicros),
        remaining_micros: big(e.amountMicros),
        fx_rate_rub_micro: big(input.lot.fxRateRubMicro),
        created_at_ms: e.createdAtMs,
      });
      await addAvailable(tx, SYSTEM_ACCOUNTS.deposits, -e.amountMicros);
      return { ok: true, transfer: toTransfer({ ...e, kind: 'credit' }), replayed: false };
    });
  }

  async refund(input: { id: string; refundOf: string; amountMicros: Micros; nowMs: number; memo?: string }): Promise<TransferOutcome> {
    assertAmount('amountMicros', input.amountMicros);
    return this.transaction<TransferOutcome>(async (tx) => {
      // Locking the refunded row first serialises refunds of one transfer (README.md lock order).
      const target = await loadEntry(tx.q, input.refundOf, tx.kind);
      if (!isRefundable(target)) return { ok: false, reason: 'transfer_not_found' };
      const e = newEntry({ ...input, accountId: target.accountId }, 'refund', { refundOf: target.id, spendMicros: -input.amountMicros });
      if (!(await insertEntry(tx, e))) return this.replayTransfer(tx, e.id, { kind: 'refund', refundOf: target.id, amountMicros: e.amountMicros });
      if (e.amountMicros > refundableMicros(target)) throw new Rollback({ ok: false, reason: 'exceeds_refundable' });
      await tx.q('ledger_transfers')
        .where('id', target.id)
        .update({ refunded_micros: tx.q.raw('refunded_micros + ?', [big(e.amountMicros)]) });
      await addAvailable(tx, e.accountId, e.amountMicros);
      const allocations = await restoreLots(tx, target.id, e.id, e.amountMicros);
      await addAvailable(tx, SYSTEM_ACCOUNTS.revenue, -e.amountMicros);
      return { ok: true, transfer: toTransfer({ ...e, kind: 'refund', allocations }), replayed: false };
    });
  }

  async getBalance(accountId: string): Promise<Balance> {
    const row = (await this.knex('ledger_balances').select('available_micros', 'held_micros').where('account_id', accountId).first()) as
      | { available_micros: number | bigint; held_micros: number | bigint }
      | undefined;
    return { accountId, availableMicros: row ? micros(row.available_micros) : 0n, heldMicros: row ? micros(row.held_micros) : 0n };
  }

  async getHold(holdId: string): Promise<Hold | null> {
    const e = await loadEntry(this.knex, holdId);
    return e && e.kind === 'hold' ? toHold(e) : null;
  }

  async getTransfer(id: string): Promise<Transfer | null> {
    const e = await loadEntry(this.knex, id);
    return e && isTransfer(e) ? toTransfer(e) : null;
  }

  async listLots(accountId: string): Promise<Lot[]> {
    const rows = (await this.knex('ledger_lots')
      .select(LOT_COLUMNS)
      .where('account_id', accountId)
      .andWhereRaw('remaining_micros > 0')
      .orderBy([{ column: 'created_at_ms' }, { column: 'seq' }])) as LotRow[];
    return rows.map(toLot);
  }

  async postedSpend(accountId: string, range: { fromMs?: number; toMs?: number } = {}): Promise<Micros> {
    const query = this.knex('ledger_transfers').where('account_id', accountId).whereNotNull('posted_at_ms');
    if (range.fromMs !== undefined) void query.andWhere('posted_at_ms', '>=', range.fromMs);
    if (range.toMs !== undefined) void query.andWhere('posted_at_ms', '<', range.toMs);
    const row = (await query.select(this.knex.raw('COALESCE(SUM(spend_micros), 0) AS total')).first()) as { total: number | bigint | string };
    return micros(row.total);
  }

  async sumOfAllBalances(): Promise<Micros> {
    const row = (await this.knex('ledger_balances').select(this.knex.raw('COALESCE(SUM(available_micros + held_micros), 0) AS total')).first()) as {
      total: number | bigint | string;
    };
    return micros(row.total);
  }

  /** Runs `work` in one transaction; a Rollback thrown inside undoes every write and becomes the answer. */
  private async transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    try {
      return await this.knex.transaction((q) => work({ q, kind: this.kind }));
    } catch (err) {
      if (err instanceof Rollback) return err.outcome as T;
      throw err;
    }
  }

  /** Throws the insufficient_balance answer, undoing the entry inserted by the same transaction. */
  private async insufficient(tx: Tx, accountId: string): Promise<never> {
    throw new Rollback({ ok: false, reason: 'insufficient_balance', availableMicros: await readAvailable(tx.q, accountId) });
  }

  /** The stored entry under an id that already exists, if it is the same request (else null: a conflict). */
  private async existing(tx: Tx, id: string, key: ReplayKey): Promise<Entry | null> {
    const stored = await loadEntry(tx.q, id);
    if (!stored) throw new Error(`ledger: ${id} conflicted on insert but cannot be read`);
    const lot = key.kind === 'credit' && stored.kind === 'credit' ? await loadLotSpec(tx.q, id) : null;
    return isSameRequest(stored, key, lot) ? stored : null;
  }

  private async replayTransfer(tx: Tx, id: string, key: ReplayKey): Promise<TransferOutcome> {
    const stored = await this.existing(tx, id, key);
    if (!stored || !isTransfer(stored)) return { ok: false, reason: 'idempotency_conflict' };
    return { ok: true, transfer: toTransfer(stored), replayed: true };
  }

  /** Voids or expires one pending hold (locked by the caller): all of it goes back to available. */
  private async resolve(tx: Tx, e: Entry, status: 'voided' | 'expired', nowMs: number): Promise<void> {
    await tx.q('ledger_transfers').where('id', e.id).update({ status, resolved_at_ms: nowMs });
    await unhold(tx, e.accountId, e.amountMicros, e.amountMicros);
  }

  private async expireBatch(tx: Tx, nowMs: number): Promise<number> {
    const query = tx.q('ledger_transfers')
      .select('id', 'account_id', 'amount_micros')
      .whereRaw("status = 'pending'") // a literal, so the partial expiry index applies
      .andWhere('expires_at_ms', '<=', nowMs)
      .orderBy('expires_at_ms')
      .limit(EXPIRY_BATCH);
    // SKIP LOCKED: a hold being settled right now is that settle's business, not the sweeper's.
    if (tx.kind === 'postgres') void query.forUpdate().skipLocked();
    const rows = (await query) as Pick<EntryRow, 'id' | 'account_id' | 'amount_micros'>[];
    if (rows.length === 0) return 0;
    await tx.q('ledger_transfers')
      .whereIn('id', rows.map((r) => r.id))
      .update({ status: 'expired', resolved_at_ms: nowMs });
    const byAccount = new Map<string, Micros>();
    for (const r of rows) byAccount.set(r.account_id, (byAccount.get(r.account_id) ?? 0n) + micros(r.amount_micros));
    await releaseHeld(tx, byAccount);
    return rows.length;
  }
}

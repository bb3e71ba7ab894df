import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import type { KeyBudgetStore, KeyHoldOutcome, KeyHoldRequest, KeySpend } from './index.js';

/**
 * The key-budget port over knex (migration 0029). A reserve is one transaction: lock the key, drop its expired
 * holds, sum its usage lines since the period began (the `(key_id, created_at_ms)` index of 0003) and its holds,
 * insert the hold if they leave room. PostgreSQL serialises reserves of one key on an advisory lock named by the key,
 * so reserves from any number of processes never both see the same room; the sums after the lock read what
 * committed before them (READ COMMITTED), charges of other processes included. SQLite has one writer.
 */
export class SqlKeyBudgetStore implements KeyBudgetStore {
  private readonly knex: Knex;
  private readonly postgres: boolean;

  constructor(db: Database) {
    this.knex = db.knex;
    this.postgres = db.kind === 'postgres';
  }

  async reserve(request: KeyHoldRequest): Promise<KeyHoldOutcome> {
    const { accountId, keyId, holdId, amountMicros, nowMs } = request;
    return this.knex.transaction(async (trx) => {
      // A transaction-scoped lock named by the key: held until commit, whatever rows exist.
      if (this.postgres) await trx.raw('select pg_advisory_xact_lock(hashtextextended(?, 0))', [`key_budget:${keyId}`]);
      if ((await trx('key_budget_holds').where('id', holdId).first('id')) !== undefined) return { ok: true };
      await trx('key_budget_holds').where('key_id', keyId).andWhere('expires_at_ms', '<=', nowMs).del();
      const { spentMicros, heldMicros } = await spendOf(trx, {
        accountId,
        keyId,
        sinceMs: request.periodStartMs,
        nowMs: null,
      });
      if (spentMicros + heldMicros + amountMicros > request.limitMicros) return { ok: false, spentMicros, heldMicros };
      await trx('key_budget_holds').insert({
        id: holdId,
        key_id: keyId,
        amount_micros: amountMicros,
        expires_at_ms: request.expiresAtMs,
      });
      return { ok: true };
    });
  }

  async extend(holdId: string, expiresAtMs: number): Promise<void> {
    await this.knex('key_budget_holds')
      .where('id', holdId)
      .andWhere('expires_at_ms', '<', expiresAtMs)
      .update({ expires_at_ms: expiresAtMs });
  }

  async release(holdId: string): Promise<void> {
    await this.knex('key_budget_holds').where('id', holdId).del();
  }

  async spend(query: { accountId: string; keyId: string; sinceMs: number; nowMs: number }): Promise<KeySpend> {
    return spendOf(this.knex, query);
  }
}

/**
 * What the key spent since `sinceMs` (Σ cost of its usage lines: what the ledger posted for them) and holds now,
 * read in one statement, so one snapshot: a charge landing and its hold's release between two reads could
 * otherwise be missed by both. `nowMs` null: every hold (the expired ones were just deleted).
 */
async function spendOf(
  db: Knex,
  q: { accountId: string; keyId: string; sinceMs: number; nowMs: number | null },
): Promise<KeySpend> {
  const holds = db('key_budget_holds').where('key_id', q.keyId);
  if (q.nowMs !== null) holds.andWhere('expires_at_ms', '>', q.nowMs);
  const row = (await db
    .select({
      spent: db.raw('cast(coalesce((?), 0) as text)', [
        db('usage_records')
          .sum('cost_micros')
          .where('key_id', q.keyId)
          .andWhere('created_at_ms', '>=', q.sinceMs)
          .andWhere('account_id', q.accountId),
      ]),
      held: db.raw('cast(coalesce((?), 0) as text)', [holds.sum('amount_micros')]),
    })
    .first()) as { spent: string; held: string };
  return { spentMicros: BigInt(row.spent), heldMicros: BigInt(row.held) };
}

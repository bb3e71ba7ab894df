import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresLedger } from '../../src/adapters/ledger/postgres.js';
import type { Database } from '../../src/db/connect.js';
import { type PostgresSchema, postgresSchema } from '../setup/databases.js';

/**
 * A batch's cost must not grow with the ledger (src/adapters/ledger/README.md "Concurrency and durability"):
 * `ledger_apply` reaches every row it locks or changes by key. Counted by PostgreSQL itself for one transaction
 * (pg_stat_xact_user_tables), so the check does not depend on timing or on what autovacuum has analysed.
 */
describe('PostgreSQL ledger: a batch reads rows by key, never a whole table', () => {
  const TRANSFERS = 20_000;
  let pg: PostgresSchema;
  let db: Database;

  beforeAll(async () => {
    pg = await postgresSchema();
    db = pg.db;
    const ledger = postgresLedger(db);
    const funded = await ledger.credit({
      id: 'cr-plans',
      accountId: 'acc-plans',
      amountMicros: 1_000_000n,
      lot: { currency: 'USD', fxRateRubMicro: 90_000_000n },
      nowMs: 1,
    });
    expect(funded.ok).toBe(true);
    // Other accounts' history: the table a scan would have to read.
    await db.knex.raw(
      `INSERT INTO ledger_transfers (id, account_id, kind, status, amount_micros, posted_micros, created_at_ms, posted_at_ms)
         SELECT 'old-' || n, 'acc-old-' || (n % 500), 'debit', 'posted', 1, 1, n, n FROM generate_series(1, ?) n`,
      [TRANSFERS],
    );
    await db.knex.raw('ANALYZE ledger_transfers');
    await ledger.drain();
  });

  afterAll(() => pg.drop());

  /**
   * Applies one batch and answers how many sequential scans of each table it took: the view also holds this
   * connection's counts not yet reported, so the batch's are the difference across it, in one transaction.
   */
  async function seqScansOf(ops: unknown[]): Promise<Record<string, number>> {
    return db.knex.transaction(async (trx) => {
      const counts = async () => {
        const { rows } = (await trx.raw(
          'SELECT relname, seq_scan FROM pg_stat_xact_user_tables WHERE schemaname = current_schema()',
        )) as {
          rows: { relname: string; seq_scan: string }[];
        };
        return new Map(rows.map((r) => [r.relname, Number(r.seq_scan)]));
      };
      const before = await counts();
      await trx.raw('SELECT ledger_apply(?::jsonb)', [JSON.stringify(ops)]);
      const after = await counts();
      return Object.fromEntries([...after].map(([table, scans]) => [table, scans - (before.get(table) ?? 0)]));
    });
  }

  it('holds, then settles, without scanning the transfers', async () => {
    const hold = {
      op: 'hold',
      id: 'hold-plans',
      accountId: 'acc-plans',
      amountMicros: '5000',
      nowMs: 10,
      expiresAtMs: 60_000,
    };
    expect((await seqScansOf([hold])).ledger_transfers).toBe(0);
    const settle = { op: 'settle', holdId: 'hold-plans', amountMicros: '4000', nowMs: 20, usage: null };
    expect((await seqScansOf([settle])).ledger_transfers).toBe(0);
  });
});

import type { Knex } from 'knex';
import { isPostgres } from './0005-ledger-batches.js';

/**
 * SQLite only: the tables a charge inserts into, keyed by text, become WITHOUT ROWID tables, stored in the order of
 * their primary key. A rowid table keyed by text is two b-trees, the rows by rowid and the key's index, so each
 * insert wrote a page of each: a charge's commit wrote 3 of its ~15 WAL pages for them (src/adapters/ledger/README.md
 * "Group commit"). PostgreSQL tables have no rowid: nothing to do there.
 *
 * Each table is rebuilt the way SQLite documents for a change ALTER TABLE cannot make: outside a transaction,
 * foreign keys off (ledger_allocations refers to ledger_transfers), then in one transaction a copy under a new name,
 * the old table dropped, the copy renamed, its indexes created again, and a foreign key check before the commit.
 */
export const config = { transaction: false };

const TABLES = ['ledger_transfers', 'usage_records', 'ledger_allocations'];

export async function up(knex: Knex): Promise<void> {
  await rebuild(knex, (createSql) => `${createSql} WITHOUT ROWID`);
}

export async function down(knex: Knex): Promise<void> {
  await rebuild(knex, (createSql) => createSql.replace(/\s+WITHOUT ROWID\s*$/i, ''));
}

async function rebuild(knex: Knex, shape: (createSql: string) => string): Promise<void> {
  if (isPostgres(knex)) return;
  await knex.raw('PRAGMA foreign_keys = OFF');
  try {
    await knex.transaction(async (trx) => {
      for (const table of TABLES) {
        const [created] = (await trx.raw("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", [
          table,
        ])) as { sql: string }[];
        const indexes = (await trx.raw(
          "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
          [table],
        )) as { sql: string }[];
        const copy = `${table}_rebuilt`;
        // The stored text starts `CREATE TABLE <name> (`, the name quoted as it was created: swap in the copy's.
        await trx.raw(
          shape(created!.sql.replace(/^CREATE TABLE\s+(?:`[^`]+`|"[^"]+"|\S+)/i, `CREATE TABLE "${copy}"`)),
        );
        await trx.raw(`INSERT INTO "${copy}" SELECT * FROM "${table}"`);
        await trx.raw(`DROP TABLE "${table}"`);
        await trx.raw(`ALTER TABLE "${copy}" RENAME TO "${table}"`);
        for (const { sql } of indexes) await trx.raw(sql);
      }
      const broken = (await trx.raw('PRAGMA foreign_key_check')) as unknown[];
      if (broken.length > 0) throw new Error(`ledger tables rebuilt with ${broken.length} broken foreign keys`);
    });
  } finally {
    await knex.raw('PRAGMA foreign_keys = ON');
  }
}

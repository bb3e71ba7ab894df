import type { Knex } from 'knex';
import { isPostgres } from './0005-ledger-batches.js';
import { LEDGER_FUNCTIONS_SQL } from './ledger-functions.sql.js';

/**
 * Charges commit without waiting for the WAL flush (src/adapters/ledger/README.md "Concurrency and durability"):
 * only the ledger functions of today, on a database an older migration installed them on. Every statement is
 * CREATE OR REPLACE, so on a new database this changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) await knex.raw(LEDGER_FUNCTIONS_SQL);
}

export async function down(): Promise<void> {
  // Nothing to undo: the functions installed are the source's.
}

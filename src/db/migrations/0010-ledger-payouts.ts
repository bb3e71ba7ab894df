import type { Knex } from 'knex';
import { isPostgres } from './0005-ledger-batches.js';
import { LEDGER_FUNCTIONS_SQL } from './ledger-functions.sql.js';

/**
 * Provider payouts inside a debit or a capture (src/adapters/ledger/README.md "Payouts"; GPU rentals, SPEC 1.6): no table
 * changes, only the ledger functions of today on a database whose 0005 installed older ones. Every statement is
 * CREATE OR REPLACE, so on a new database (0005 just installed the same text) this changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) await knex.raw(LEDGER_FUNCTIONS_SQL);
}

export async function down(): Promise<void> {
  // Nothing to undo: the functions installed are the source's, and a batch without payees runs in them as before.
}

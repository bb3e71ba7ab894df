import type { Knex } from 'knex';
import { isPostgres } from './0005-ledger-batches.js';
import { LEDGER_FUNCTIONS_SQL } from './ledger-functions.sql.js';

/**
 * `ledger_apply` finds the accounts a batch locks by key (src/adapters/ledger/README.md "Concurrency and
 * durability"): before, it joined the batch against the whole transfers table, a scan that grew with every charge.
 * Every statement is CREATE OR REPLACE, so on a new database this changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  if (isPostgres(knex)) await knex.raw(LEDGER_FUNCTIONS_SQL);
}

export async function down(): Promise<void> {
  // Nothing to undo: the functions installed are the source's.
}

import type { Knex } from 'knex';
import { LEDGER_FUNCTION_NAMES, LEDGER_FUNCTIONS_SQL } from './ledger-functions.sql.js';

/**
 * Ledger v2 (src/adapters/ledger/README.md "Group commit", "Captures"). A capture records the hold it was taken
 * from (`hold_id`; read only with its own row, so no index). On PostgreSQL, a batch of ledger operations is one
 * call of `ledger_apply(jsonb)`: the same steps as src/adapters/ledger/operations.ts, in one round trip and one
 * transaction; SQLite runs those steps in-process.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_transfers', (t) => {
    t.text('hold_id').nullable();
  });
  if (isPostgres(knex)) await knex.raw(LEDGER_FUNCTIONS_SQL);
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex))
    for (const signature of LEDGER_FUNCTION_NAMES) await knex.raw(`DROP FUNCTION IF EXISTS ${signature}`);
  await knex.schema.alterTable('ledger_transfers', (t) => {
    t.dropColumn('hold_id');
  });
}

/** Only PostgreSQL has the ledger functions (SQLite runs the same steps in-process); migration 0010 asks too. */
export function isPostgres(knex: Knex): boolean {
  return (knex.client as { dialect?: string }).dialect === 'postgresql';
}

import type { Knex } from 'knex';
import { LEDGER_FUNCTIONS_SQL, LEDGER_FUNCTION_NAMES } from './ledger-functions.sql.js';

/**
 * Ledger v2 (src/adapters/ledger/README.md "Group commit"). On PostgreSQL, a batch of ledger operations is one
 * call of `ledger_apply(jsonb)`: the same steps as src/adapters/ledger/operations.ts, in one round trip and one
 * transaction. SQLite runs those steps in-process and needs no schema change (the `loss` kind is plain text).
 */
export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.raw(LEDGER_FUNCTIONS_SQL);
}

export async function down(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  for (const signature of LEDGER_FUNCTION_NAMES) await knex.raw(`DROP FUNCTION IF EXISTS ${signature}`);
}

function isPostgres(knex: Knex): boolean {
  return (knex.client as { dialect?: string }).dialect === 'postgresql';
}

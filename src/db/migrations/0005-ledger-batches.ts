import type { Knex } from 'knex';
import { dropFunctionSet } from '../install-functions.js';

/**
 * Ledger v2 (src/adapters/ledger/README.md "Group commit", "Captures"). A capture records the hold it was taken
 * from (`hold_id`; read only with its own row, so no index). On PostgreSQL, a batch of ledger operations is one
 * call of `ledger_apply(jsonb)`: the same steps as src/adapters/ledger/operations.ts, in one round trip and one
 * transaction; SQLite runs those steps in-process. This migration installed those functions; the installer does
 * now, after the migrations, from their source's content (src/db/install-functions.ts, README.md "Upgrades").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('ledger_transfers', (t) => {
    t.text('hold_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) await dropFunctionSet(knex, 'ledger');
  await knex.schema.alterTable('ledger_transfers', (t) => {
    t.dropColumn('hold_id');
  });
}

/** Only PostgreSQL has the ledger functions (SQLite runs the same steps in-process); later migrations ask too. */
export function isPostgres(knex: Knex): boolean {
  return (knex.client as { dialect?: string }).dialect === 'postgresql';
}

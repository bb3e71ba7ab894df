import type { Knex } from 'knex';
import { isPostgres } from './0005-ledger-batches.js';

/**
 * PostgreSQL only: which version of each function set the schema runs, as the sha256 of its SQL
 * (src/db/install-functions.ts). The installer compares it at every start and installs the set when it differs,
 * so an edit to the SQL reaches an upgraded database without a migration of its own. SQLite has no functions.
 */
export async function up(knex: Knex): Promise<void> {
  if (!isPostgres(knex)) return;
  await knex.schema.createTable('schema_functions', (t) => {
    t.text('name').notNullable().primary();
    t.text('sha256').notNullable();
    t.bigInteger('installed_at_ms').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  if (isPostgres(knex)) await knex.schema.dropTableIfExists('schema_functions');
}

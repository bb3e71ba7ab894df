import type { Knex } from 'knex';

/**
 * Secrets the service makes for itself when the operator set none (ACCOUNT_LINK_SECRET): kept here so links survive
 * a restart and every process on one database signs alike. Read only by src/adapters/server-secrets.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('server_secrets', (t) => {
    t.text('name').notNullable().primary();
    t.text('value').notNullable();
    t.bigInteger('created_at_ms').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('server_secrets');
}

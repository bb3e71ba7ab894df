import type { Knex } from 'knex';

/**
 * Idempotency keys of paid requests (src/adapters/idempotency): one row per (account, key), replayed for 24 h.
 * `expires_at_ms` is indexed for the sweeper; the primary key serves every other query.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotency_keys', (t) => {
    t.text('account_id').notNullable();
    t.text('key').notNullable();
    t.text('fingerprint').notNullable();
    t.text('request_id').notNullable();
    t.text('state').notNullable(); // in_flight | completed | streamed
    t.integer('status_code').nullable();
    t.text('body').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('expires_at_ms').notNullable();
    t.bigInteger('locked_until_ms').notNullable();
    t.primary(['account_id', 'key'], 'idempotency_keys_pkey');
    t.index(['expires_at_ms'], 'idempotency_keys_expires_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('idempotency_keys');
}

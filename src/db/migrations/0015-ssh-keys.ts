import type { Knex } from 'knex';

/** Account SSH keys (settings; src/adapters/ssh-key-store), handed to every rental's container when it starts. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ssh_keys', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('name').notNullable();
    t.text('public_key').notNullable();
    t.text('fingerprint').notNullable();
    t.bigInteger('created_at_ms').notNullable();
    t.unique(['account_id', 'fingerprint'], { indexName: 'ssh_keys_account_fingerprint' });
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('ssh_keys');
}

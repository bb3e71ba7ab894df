import type { Knex } from 'knex';

/**
 * Accounts and their API keys (SPEC 5). Written with the portable subset of the schema builder so the same
 * migration runs on SQLite and PostgreSQL: times are int8 milliseconds, discounts a double, the tier map JSON text.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('accounts', (t) => {
    t.text('id').primary();
    // Lower-cased by the domain before insert, so a plain unique index is case-insensitive in effect.
    t.text('email').notNullable().unique({ indexName: 'accounts_email_unique' });
    t.bigInteger('created_at_ms').notNullable();
    // double, not numeric: pg returns numeric as a string and `float` (real) would round 7.3 to 7.300000190734863.
    t.double('discount_percent').notNullable().defaultTo(0);
    t.text('tier_discounts').notNullable().defaultTo('{}');
  });

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary();
    // Not a foreign key on purpose: keys outlive a hard-deleted account and answer user_not_found (SPEC 5.4).
    t.text('account_id').notNullable();
    t.text('name').notNullable();
    t.text('key_hash').notNullable().unique({ indexName: 'api_keys_key_hash_unique' });
    t.text('display_hint').notNullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('last_used_at_ms').nullable();
    t.bigInteger('revoked_at_ms').nullable();
    // Leading account_id serves lookups by account; created_at_ms serves "newest first" listings.
    t.index(['account_id', 'created_at_ms'], 'api_keys_account_id_created_at_ms_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('api_keys');
  await knex.schema.dropTableIfExists('accounts');
}

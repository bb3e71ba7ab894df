import type { Knex } from 'knex';

/**
 * Sign-in credentials and sessions (issue 26, DESIGN.md 10), keyed by accounts.id of 0001. Not foreign keys, like
 * api_keys: rows of a hard-deleted account are removed by its deletion, not by a cascade. Portable schema builder
 * only, so SQLite and PostgreSQL get the same tables; times are int8 milliseconds.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('logins', (t) => {
    t.text('account_id').primary();
    // Lower-cased by the caller, like accounts.email.
    t.text('email').notNullable().unique({ indexName: 'logins_email_unique' });
    t.text('password_hash').notNullable();
    t.bigInteger('email_confirmed_at_ms').nullable();
    t.text('totp_secret').nullable();
    t.bigInteger('totp_last_step').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('updated_at_ms').notNullable();
  });

  // One row per unused code: consuming one is a single-row delete, atomic on both databases.
  await knex.schema.createTable('login_recovery_codes', (t) => {
    t.text('account_id').notNullable();
    t.text('code_hash').notNullable();
    t.primary(['account_id', 'code_hash'], 'login_recovery_codes_pkey');
  });

  // The primary key is what makes a signed link single use across processes.
  await knex.schema.createTable('used_link_nonces', (t) => {
    t.text('nonce').primary();
    t.text('purpose').notNullable();
    t.bigInteger('expires_at_ms').notNullable();
    t.index(['expires_at_ms'], 'used_link_nonces_expires_at_ms_index');
  });

  await knex.schema.createTable('sessions', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('family_id').notNullable();
    t.text('access_hash').notNullable().unique({ indexName: 'sessions_access_hash_unique' });
    t.text('refresh_hash').notNullable().unique({ indexName: 'sessions_refresh_hash_unique' });
    t.bigInteger('access_expires_at_ms').notNullable();
    t.bigInteger('refresh_expires_at_ms').notNullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('last_used_at_ms').notNullable();
    t.text('user_agent').nullable();
    t.text('ip').nullable();
    t.bigInteger('rotated_at_ms').nullable();
    t.bigInteger('revoked_at_ms').nullable();
    t.index(['account_id', 'created_at_ms'], 'sessions_account_id_created_at_ms_index');
    t.index(['family_id'], 'sessions_family_id_index');
    t.index(['refresh_expires_at_ms'], 'sessions_refresh_expires_at_ms_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('sessions');
  await knex.schema.dropTableIfExists('used_link_nonces');
  await knex.schema.dropTableIfExists('login_recovery_codes');
  await knex.schema.dropTableIfExists('logins');
}

import type { Knex } from 'knex';

/**
 * Operator locks (issue 26 item 8: `accounts lock/unlock`): while `locked_at_ms` is set, every key of the account
 * answers 403 account_locked. Nullable, so every existing account stays unlocked; the reason is the operator's
 * note, kept for `accounts show`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.bigInteger('locked_at_ms').nullable();
    t.text('lock_reason').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumn('locked_at_ms');
    t.dropColumn('lock_reason');
  });
}

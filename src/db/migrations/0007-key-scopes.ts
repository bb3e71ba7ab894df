import type { Knex } from 'knex';

/**
 * Key scopes (docs/decisions.md: API keys): whether a key may create and revoke the account's keys. Keys that
 * exist already could do so before, so they keep it; a new key's value is always written by the store.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.boolean('manages_keys').notNullable().defaultTo(true);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('manages_keys'));
}

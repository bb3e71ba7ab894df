import type { Knex } from 'knex';

/**
 * Per-key and per-account rate limits (null = the configured default, SPEC 8) and the ruble-billing switch
 * (SPEC 4.3): when it was last switched on matters, since charges before it are priced at the market rate.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.integer('rate_limit_per_minute').nullable();
    t.boolean('rub_billing').notNullable().defaultTo(false);
  });
  await knex.schema.alterTable('api_keys', (t) => {
    t.integer('rate_limit_per_minute').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => t.dropColumn('rate_limit_per_minute'));
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumn('rate_limit_per_minute');
    t.dropColumn('rub_billing');
  });
}

import type { Knex } from 'knex';

/**
 * The GPUs a stopped rental had (src/adapters/market-store): its container was created with them, so a start takes
 * the same ones again or none (409 `resources_unavailable`), never others.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (t) => {
    t.text('last_gpu_indexes').notNullable().defaultTo('[]');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (t) => {
    t.dropColumn('last_gpu_indexes');
  });
}

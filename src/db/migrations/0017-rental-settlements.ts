import type { Knex } from 'knex';

/**
 * Every settlement of a rental (src/adapters/market-store): recorded with the instance's intent to post it, and
 * given the provider's share once the ledger posted it. Burst orders' billing transactions and providers' earnings
 * by machine and day are read from here.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('rental_settlements', (t) => {
    t.text('instance_id').notNullable();
    t.integer('seq').notNullable();
    t.text('machine_id').notNullable();
    t.text('provider_account_id').notNullable();
    t.bigInteger('charged_micros').notNullable();
    t.bigInteger('provider_micros').nullable(); // null until posted
    t.bigInteger('at_ms').notNullable();
    t.primary(['instance_id', 'seq']);
    t.index(['provider_account_id', 'at_ms'], 'rental_settlements_provider_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('rental_settlements');
}

import type { Knex } from 'knex';

/**
 * Persistent volumes (SPEC 1.8 "one USD balance pays for GPU rentals, volumes and every model", 2.10 `volume_id`;
 * src/adapters/market-store/volumes.ts). A volume is a disk on one provider's machine, pinned by the first rental
 * that attaches it; it is billed per millisecond while it exists, each settlement recorded before it is posted,
 * like a rental's. Integer ids: SPEC 2.10 types `volume_id` as an integer.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('volumes', (t) => {
    t.increments('id').primary();
    t.text('account_id').notNullable();
    t.text('name').notNullable();
    t.integer('size_gb').notNullable();
    t.bigInteger('price_micros_per_gb_month').notNullable();
    t.text('machine_id').nullable();
    t.text('provider_account_id').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('deleted_at_ms').nullable();
    t.bigInteger('settled_until_ms').notNullable();
    t.bigInteger('charged_micros').notNullable();
    t.integer('settle_seq').notNullable();
    t.bigInteger('pending_charge_micros').notNullable();
    t.integer('version').notNullable();
    t.index(['account_id', 'created_at_ms'], 'volumes_account_index');
    t.index(['machine_id'], 'volumes_machine_index');
    t.index(['settled_until_ms'], 'volumes_settled_index');
  });
  await knex.schema.createTable('volume_settlements', (t) => {
    t.integer('volume_id').notNullable();
    t.integer('seq').notNullable();
    t.text('machine_id').nullable(); // null while the volume is on no machine yet
    t.text('provider_account_id').nullable();
    t.bigInteger('charged_micros').notNullable();
    t.bigInteger('provider_micros').nullable(); // null until posted
    t.bigInteger('at_ms').notNullable();
    t.primary(['volume_id', 'seq']);
    t.index(['provider_account_id', 'at_ms'], 'volume_settlements_provider_index');
  });
  await knex.schema.alterTable('instances', (t) => {
    t.integer('volume_id').nullable();
    t.index(['volume_id'], 'instances_volume_index');
  });
  await knex.schema.alterTable('burst_orders', (t) => {
    t.integer('volume_id').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('burst_orders', (t) => {
    t.dropColumn('volume_id');
  });
  await knex.schema.alterTable('instances', (t) => {
    t.dropIndex(['volume_id'], 'instances_volume_index');
    t.dropColumn('volume_id');
  });
  await knex.schema.dropTableIfExists('volume_settlements');
  await knex.schema.dropTableIfExists('volumes');
}

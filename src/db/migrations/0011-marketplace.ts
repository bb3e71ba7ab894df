import type { Knex } from 'knex';

/**
 * The GPU marketplace (src/adapters/market-store; SPEC 1.1-1.6): machines with one row per GPU (free, or held by
 * one instance), instances (rentals) with their billing state, and each instance's status history.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('machines', (t) => {
    t.text('id').primary();
    t.text('provider_account_id').notNullable();
    t.text('name').notNullable();
    t.text('gpu_name').notNullable();
    t.integer('gpu_count').notNullable();
    t.integer('vram_gb').notNullable();
    t.integer('cpu_cores').notNullable();
    t.integer('ram_gb').notNullable();
    t.integer('disk_gb').notNullable();
    t.text('location').notNullable();
    t.bigInteger('price_per_gpu_hour_micros').notNullable();
    t.integer('min_gpus').notNullable();
    t.integer('day_discount_bp').notNullable();
    t.integer('week_discount_bp').notNullable();
    t.integer('month_discount_bp').notNullable();
    t.bigInteger('available_until_ms').nullable();
    t.boolean('listed').notNullable();
    t.text('verification').notNullable(); // unverified | verified | deverified
    t.bigInteger('last_heartbeat_ms').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.index(['provider_account_id'], 'machines_provider_index');
    t.index(['gpu_name', 'price_per_gpu_hour_micros'], 'machines_offer_index');
  });
  await knex.schema.createTable('machine_gpus', (t) => {
    t.text('machine_id').notNullable();
    t.integer('idx').notNullable();
    t.text('instance_id').nullable();
    t.primary(['machine_id', 'idx']);
    t.index(['instance_id'], 'machine_gpus_instance_index');
  });
  await knex.schema.createTable('instances', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('machine_id').notNullable();
    t.text('provider_account_id').notNullable();
    t.text('gpu_name').notNullable();
    t.integer('gpu_count').notNullable();
    t.text('docker_image').notNullable();
    t.integer('disk_gb').notNullable();
    t.text('pricing_type').notNullable();
    t.bigInteger('unit_price_micros').notNullable();
    t.bigInteger('term_ms').nullable();
    t.text('desired_status').notNullable();
    t.text('status').notNullable();
    t.text('status_reason').nullable();
    t.bigInteger('running_since_ms').nullable();
    t.bigInteger('running_ms').notNullable();
    t.bigInteger('settled_running_ms').notNullable();
    t.bigInteger('charged_micros').notNullable();
    t.integer('settle_seq').notNullable();
    t.bigInteger('pending_charge_micros').notNullable();
    t.text('hold_id').nullable();
    t.integer('ssh_port').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('updated_at_ms').notNullable();
    t.integer('version').notNullable();
    t.index(['account_id', 'created_at_ms'], 'instances_account_index');
    t.index(['machine_id', 'status'], 'instances_machine_index');
    t.index(['status'], 'instances_status_index');
  });
  await knex.schema.createTable('instance_events', (t) => {
    t.increments('id').primary();
    t.text('instance_id').notNullable();
    t.bigInteger('at_ms').notNullable();
    t.text('status').notNullable();
    t.text('desired_status').notNullable();
    t.text('reason').nullable();
    t.index(['instance_id', 'id'], 'instance_events_instance_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['instance_events', 'instances', 'machine_gpus', 'machines'])
    await knex.schema.dropTableIfExists(table);
}

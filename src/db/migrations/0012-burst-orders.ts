import type { Knex } from 'knex';

/**
 * Burst orders (SPEC 1.7, 2.10; src/adapters/market-store): an order places up to 100 GPUs as rentals across
 * machines; each rental names its order.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('burst_orders', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('docker_image').notNullable();
    t.text('primary_gpu').notNullable();
    t.bigInteger('primary_max_price_micros').nullable();
    t.integer('gpu_count').notNullable();
    t.text('extra_gpus').notNullable(); // JSON [{gpuName, maxPricePerGpuHourMicros}] in order
    t.integer('disk_gb').notNullable();
    t.text('pricing_type').notNullable();
    t.text('desired_status').notNullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('updated_at_ms').notNullable();
    t.index(['account_id', 'created_at_ms'], 'burst_orders_account_index');
  });
  await knex.schema.alterTable('instances', (t) => {
    t.text('burst_order_id').nullable();
    t.index(['burst_order_id'], 'instances_burst_order_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (t) => {
    t.dropIndex(['burst_order_id'], 'instances_burst_order_index');
    t.dropColumn('burst_order_id');
  });
  await knex.schema.dropTableIfExists('burst_orders');
}

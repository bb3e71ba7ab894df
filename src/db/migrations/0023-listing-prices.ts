import type { Knex } from 'knex';

/** The price floor of listings: $0.01 per GPU-hour (MachineListing.yaml), below which a plan's price can round to $0. */
const FLOOR_MICROS = 10_000;

/**
 * Listing prices (docs/marketplace.md). A machine's announced price rise: a listing change that raises any plan's
 * price reaches new rentals only after a notice period, so the listing keeps the price charged now and these
 * columns the rise (hourly price and discounts) with the moment it applies; null while none is announced. And the
 * floor: a machine listed below it before the floor existed is taken off the marketplace at the floor price, so
 * nobody rents it for nothing and its provider lists it again knowingly.
 */
export async function up(knex: Knex): Promise<void> {
  await knex('machines')
    .where('price_per_gpu_hour_micros', '<', FLOOR_MICROS)
    .update({ price_per_gpu_hour_micros: FLOOR_MICROS, listed: false });
  await knex.schema.alterTable('machines', (t) => {
    t.bigInteger('rise_price_micros').nullable();
    t.integer('rise_day_discount_bp').nullable();
    t.integer('rise_week_discount_bp').nullable();
    t.integer('rise_month_discount_bp').nullable();
    t.bigInteger('rise_at_ms').nullable();
    t.index(['rise_at_ms'], 'machines_rise_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('machines', (t) => {
    t.dropIndex(['rise_at_ms'], 'machines_rise_index');
    for (const column of [
      'rise_price_micros',
      'rise_day_discount_bp',
      'rise_week_discount_bp',
      'rise_month_discount_bp',
      'rise_at_ms',
    ])
      t.dropColumn(column);
  });
}

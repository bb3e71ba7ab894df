import type { Knex } from 'knex';

/**
 * A machine's announced price rise (README "GPU rentals: the price shown"): a listing change that raises any plan's
 * price reaches new rentals only after a notice period, so the listing keeps the price charged now and these
 * columns the rise (hourly price and discounts) with the moment it applies. Null while none is announced.
 */
export async function up(knex: Knex): Promise<void> {
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
    for (const column of ['rise_price_micros', 'rise_day_discount_bp', 'rise_week_discount_bp', 'rise_month_discount_bp', 'rise_at_ms']) t.dropColumn(column);
  });
}

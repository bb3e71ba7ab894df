import type { Knex } from 'knex';

/**
 * Term rentals as commitments (DESIGN.md 3 "Rentals: plans"; src/domain/market/commitment.ts, term-holds.ts):
 * `minute_price_micros` is one GPU's minute price locked at creation, what a day, week or month rental stopped or
 * deleted early is re-priced at; `hold_renew_at_ms` is when the sweeper next checks a term rental's hold (null while
 * it has none). Rentals made before keep their machine's minute price today, and have their hold checked at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (t) => {
    t.bigInteger('minute_price_micros').notNullable().defaultTo(0);
    t.bigInteger('hold_renew_at_ms').nullable();
    t.index(['hold_renew_at_ms'], 'instances_hold_renew_index');
  });
  await knex('instances').update({
    minute_price_micros: knex.raw(
      'coalesce((select (m.price_per_gpu_hour_micros + 59) / 60 from machines m where m.id = instances.machine_id), 0)',
    ),
  });
  await knex('instances').whereNotNull('hold_id').update({ hold_renew_at_ms: 0 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('instances', (t) => {
    t.dropIndex(['hold_renew_at_ms'], 'instances_hold_renew_index');
    t.dropColumn('hold_renew_at_ms');
    t.dropColumn('minute_price_micros');
  });
}

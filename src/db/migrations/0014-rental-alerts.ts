import type { Knex } from 'knex';

/**
 * Rental status alerts (SPEC 6.3; src/adapters/alert-store): each account's linked messenger chat, and the cursor
 * over `instance_events` (0011) that says how far alerts were delivered, with its claim (a lease, so that only one
 * gateway process sends at a time) and the failed attempts of the next alert.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('alert_targets', (t) => {
    t.text('account_id').primary();
    t.text('messenger_chat_id').nullable();
    t.boolean('rentals_enabled').notNullable();
    t.bigInteger('updated_at_ms').notNullable();
  });
  await knex.schema.createTable('alert_cursor', (t) => {
    t.text('name').primary();
    t.bigInteger('last_event_id').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.bigInteger('retry_at_ms').notNullable().defaultTo(0);
    t.text('claim_owner').nullable();
    t.bigInteger('claim_until_ms').nullable();
  });
  // Alerts start with this version: status changes recorded before it are history, not news.
  const last = (await knex('instance_events').max({ id: 'id' }).first()) as { id: number | bigint | null } | undefined;
  await knex('alert_cursor').insert({
    name: 'rentals',
    last_event_id: Number(last?.id ?? 0),
    attempts: 0,
    retry_at_ms: 0,
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('alert_cursor');
  await knex.schema.dropTableIfExists('alert_targets');
}

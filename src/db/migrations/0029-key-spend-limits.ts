import type { Knex } from 'knex';

/**
 * Per-key spend limits (issue 26 item 6, docs/money.md "Key spend limits"): the limit on api_keys, and the holds
 * that reserve a limited key's requests in flight against it. What a key has spent in a period is summed from its
 * usage lines (`usage_records`, by the `(key_id, created_at_ms)` index of 0003), which the ledger writes in the
 * charge's own transaction, so it is exact after any crash. A hold is deleted once its charge has landed; between
 * the two the request counts twice, never zero times. Times int8 milliseconds, money int8 micro-USD.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_keys', (t) => {
    t.bigInteger('spend_limit_micros').nullable();
    // 'day' | 'week' | 'month' (UTC), set together with spend_limit_micros.
    t.text('spend_limit_period').nullable();
  });

  await knex.schema.createTable('key_budget_holds', (t) => {
    t.text('id').primary();
    t.text('key_id').notNullable();
    t.bigInteger('amount_micros').notNullable();
    t.bigInteger('expires_at_ms').notNullable();
    t.index(['key_id', 'expires_at_ms'], 'key_budget_holds_key_id_expires_at_ms_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('key_budget_holds');
  await knex.schema.alterTable('api_keys', (t) => {
    t.dropColumn('spend_limit_period');
    t.dropColumn('spend_limit_micros');
  });
}

import type { Knex } from 'knex';

const ROLLUP_SUMS = [
  'requests',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_micros',
  'billed_rub_micro',
  'unbilled_cost_micros',
] as const;

/**
 * The usage log (SPEC 2.6, 4.3; DESIGN 8). `usage_records` is append-only and only ever read by account or key
 * within a time range, hence exactly two secondary indexes and no foreign keys (every extra index or check
 * slows the hottest insert in the service). `usage_daily` holds roll-ups incremented in the same transaction
 * as the records, so history totals per day never scan records. Money is int8 micro-units, times int8 ms.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('usage_records', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('key_id').notNullable();
    t.text('request_id').notNullable();
    t.text('model').notNullable();
    t.text('kind').notNullable();
    t.text('endpoint').notNullable();
    // Per-request counts stay far below 2^31; the daily sums below are int8.
    t.integer('prompt_tokens').notNullable();
    t.integer('completion_tokens').notNullable();
    t.integer('cached_tokens').notNullable();
    t.integer('reasoning_tokens').notNullable();
    t.integer('total_tokens').notNullable();
    t.bigInteger('cost_micros').notNullable();
    t.text('transfer_id').nullable();
    t.boolean('billed_in_rub').notNullable();
    t.bigInteger('cost_rub_micro').nullable();
    t.bigInteger('fx_rate_rub_micro').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.integer('duration_ms').notNullable();
    t.text('metadata').notNullable(); // JSON object
    t.index(['account_id', 'created_at_ms'], 'usage_records_account_id_created_at_ms_index');
    t.index(['key_id', 'created_at_ms'], 'usage_records_key_id_created_at_ms_index');
  });

  await knex.schema.createTable('usage_daily', (t) => {
    t.text('account_id').notNullable();
    // 'YYYY-MM-DD' (UTC) as text: sorts and compares correctly and reads back the same on both databases.
    t.text('day').notNullable();
    t.text('model').notNullable();
    t.text('kind').notNullable();
    for (const column of ROLLUP_SUMS) t.bigInteger(column).notNullable();
    // The primary key is the upsert target and also serves "one account, a range of days".
    // (The string form of the name: knex's SQLite dialect mis-renders the options-object form.)
    t.primary(['account_id', 'day', 'model', 'kind'], 'usage_daily_pkey');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('usage_daily');
  await knex.schema.dropTableIfExists('usage_records');
}

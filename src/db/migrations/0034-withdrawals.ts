import type { Knex } from 'knex';

/**
 * USDT-TRC20 withdrawals (SPEC 1.10, issue 27 item 4, DESIGN.md 11): each account's allow-listed addresses and its
 * withdrawals through their whole life. The one-row `withdrawal_gate` is what `create` locks, so the caps check and
 * the insert are one serialized step across processes; `txid` is unique, so one chain transaction settles one
 * withdrawal. The (account_id, address) unique key also serves an account's address lookups.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('withdrawal_addresses', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('address').notNullable();
    t.text('label').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('usable_from_ms').notNullable();
    t.unique(['account_id', 'address'], { indexName: 'withdrawal_addresses_account_address_unique' });
  });
  await knex.schema.createTable('withdrawals', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('address').notNullable();
    t.bigInteger('amount_micros').notNullable();
    t.bigInteger('fee_micros').notNullable();
    t.text('status').notNullable();
    t.text('approved_by').nullable();
    t.text('txid').nullable().unique({ indexName: 'withdrawals_txid_unique' });
    t.text('signed_hex').nullable();
    t.bigInteger('expiration_ms').nullable();
    t.bigInteger('block_number').nullable();
    t.text('failure_reason').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('updated_at_ms').notNullable();
    t.bigInteger('finished_at_ms').nullable();
    t.index(['account_id', 'created_at_ms'], 'withdrawals_account_id_created_at_ms_index');
    t.index(['status', 'created_at_ms'], 'withdrawals_status_created_at_ms_index');
    t.index(['created_at_ms'], 'withdrawals_created_at_ms_index');
  });
  await knex.schema.createTable('withdrawal_gate', (t) => {
    t.integer('id').primary();
  });
  await knex('withdrawal_gate').insert({ id: 1 });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('withdrawal_gate');
  await knex.schema.dropTableIfExists('withdrawals');
  await knex.schema.dropTableIfExists('withdrawal_addresses');
}

import type { Knex } from 'knex';

/**
 * Deposits of every rail (issue 27, DESIGN.md 11), the TRON addresses handed out for them, and the chain watcher's
 * place. The unique keys are what make every rail's event land once: (processor, processor_ref) for a payment or a
 * chain transfer, one address per account and one account per address, one derivation index per address.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('deposits', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('method').notNullable();
    t.text('processor').notNullable();
    t.text('processor_ref').nullable();
    t.text('charge_ref').nullable();
    t.text('status').notNullable();
    t.bigInteger('amount_minor').nullable();
    t.text('currency').notNullable();
    t.bigInteger('credited_micros').nullable();
    t.bigInteger('fx_rate_rub_micro').nullable();
    t.bigInteger('refunded_micros').notNullable().defaultTo(0);
    t.text('checkout_url').nullable();
    t.text('address').nullable();
    t.text('tx_id').nullable();
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('updated_at_ms').notNullable();
    t.bigInteger('credited_at_ms').nullable();
    t.unique(['processor', 'processor_ref'], { indexName: 'deposits_processor_ref_unique' });
    t.index(['account_id', 'created_at_ms'], 'deposits_account_id_created_at_ms_index');
    t.index(['processor', 'charge_ref'], 'deposits_processor_charge_ref_index');
  });
  await knex.schema.createTable('deposit_addresses', (t) => {
    t.text('account_id').primary();
    t.integer('derivation_index').notNullable().unique({ indexName: 'deposit_addresses_index_unique' });
    t.text('address').notNullable().unique({ indexName: 'deposit_addresses_address_unique' });
  });
  await knex.schema.createTable('chain_cursors', (t) => {
    t.text('chain').primary();
    t.bigInteger('block_number').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('chain_cursors');
  await knex.schema.dropTableIfExists('deposit_addresses');
  await knex.schema.dropTableIfExists('deposits');
}

import type { Knex } from 'knex';

/**
 * The ledger (src/adapters/ledger/README.md). Portable schema-builder subset, so SQLite and PostgreSQL run the
 * same migration: amounts are int8 micro-USD, times int8 epoch milliseconds, enums plain text. The CHECK
 * constraints are defence in depth: the adapter already never writes such rows, but a bug would fail loudly
 * instead of corrupting money.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ledger_balances', (t) => {
    t.text('account_id').notNullable().primary(); // SQLite lets a text primary key be NULL unless told
    t.bigInteger('available_micros').notNullable().defaultTo(0);
    t.bigInteger('held_micros').notNullable().defaultTo(0);
    // Only system accounts (index.ts SYSTEM_ACCOUNTS) may go negative.
    t.check("available_micros >= 0 OR account_id LIKE 'system:%'", {}, 'ledger_balances_available_check');
    t.check('held_micros >= 0', {}, 'ledger_balances_held_check');
  });

  // Holds and posted transfers in one table: one id space for idempotency keys, one index for postedSpend.
  await knex.schema.createTable('ledger_transfers', (t) => {
    t.text('id').notNullable().primary();
    t.text('account_id').notNullable();
    t.text('kind').notNullable(); // hold | debit | credit | refund
    t.text('status').notNullable(); // pending | posted | voided | expired (non-holds are born posted)
    t.bigInteger('amount_micros').notNullable();
    t.bigInteger('posted_micros').nullable(); // holds: the settled amount; others: amount
    t.bigInteger('refunded_micros').notNullable().defaultTo(0);
    t.bigInteger('spend_micros').notNullable().defaultTo(0); // signed contribution to postedSpend
    t.text('refund_of').nullable();
    t.text('memo').notNullable().defaultTo('');
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('expires_at_ms').nullable();
    t.bigInteger('resolved_at_ms').nullable();
    t.bigInteger('posted_at_ms').nullable();
    t.check('amount_micros >= 0', {}, 'ledger_transfers_amount_check');
    t.check(
      'refunded_micros >= 0 AND refunded_micros <= COALESCE(posted_micros, 0)',
      {},
      'ledger_transfers_refunded_check',
    );
    t.index(['account_id', 'posted_at_ms'], 'ledger_transfers_account_posted_index');
    t.index(['refund_of'], 'ledger_transfers_refund_of_index');
    // The sweeper scans only pending holds; a partial index stays small however many transfers accumulate.
    t.index(['expires_at_ms'], 'ledger_transfers_pending_expiry_index', {
      predicate: knex.whereRaw("status = 'pending'"),
    });
  });

  await knex.schema.createTable('ledger_lots', (t) => {
    // seq breaks ties between lots created in the same millisecond, in insertion order.
    t.bigIncrements('seq');
    t.text('id').notNullable().unique({ indexName: 'ledger_lots_id_unique' });
    t.text('account_id').notNullable();
    t.text('currency').notNullable();
    t.bigInteger('amount_micros').notNullable();
    t.bigInteger('remaining_micros').notNullable();
    t.bigInteger('fx_rate_rub_micro').notNullable();
    t.bigInteger('created_at_ms').notNullable();
    t.check('remaining_micros >= 0 AND remaining_micros <= amount_micros', {}, 'ledger_lots_remaining_check');
    // FIFO scans read only lots with money left; exhausted lots drop out of the index (and come back on refund).
    t.index(['account_id', 'created_at_ms', 'seq'], 'ledger_lots_spending_order_index', {
      predicate: knex.whereRaw('remaining_micros > 0'),
    });
  });

  await knex.schema.createTable('ledger_allocations', (t) => {
    t.text('transfer_id').notNullable().references('id').inTable('ledger_transfers');
    t.integer('seq').notNullable(); // consumption order within the transfer
    t.text('lot_id').notNullable().references('id').inTable('ledger_lots');
    t.bigInteger('amount_micros').notNullable(); // > 0 spent from the lot, < 0 restored by a refund
    t.bigInteger('fx_rate_rub_micro').notNullable();
    t.primary(['transfer_id', 'seq']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('ledger_allocations');
  await knex.schema.dropTableIfExists('ledger_lots');
  await knex.schema.dropTableIfExists('ledger_transfers');
  await knex.schema.dropTableIfExists('ledger_balances');
}

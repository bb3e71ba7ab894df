import type { Knex } from 'knex';

/**
 * What an account owes after a refund or a lost dispute took back money it had already spent (issue 27 item 1): the
 * sum on the account row, read with it on every request, and the entries that made it, each applied once by its id
 * (a clawback's debt, a deposit's repayment, a won dispute's reversal).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('accounts', (t) => {
    t.bigInteger('debt_micros').notNullable().defaultTo(0);
  });
  await knex.schema.createTable('account_debt_entries', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.bigInteger('delta_micros').notNullable();
    t.bigInteger('created_at_ms').notNullable();
    t.index(['account_id'], 'account_debt_entries_account_id_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('account_debt_entries');
  await knex.schema.alterTable('accounts', (t) => {
    t.dropColumn('debt_micros');
  });
}

import type { Knex } from 'knex';

/**
 * Only refunds name the charge they return (`refund_of`); every other transfer left a NULL entry in this index, one
 * more page written by each charge's transaction (src/adapters/ledger/README.md "Group commit"). The partial index
 * still serves every lookup, which all ask for a given charge's refunds (`refund_of = ?`).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX ledger_transfers_refund_of_index');
  await knex.raw(
    'CREATE INDEX ledger_transfers_refund_of_index ON ledger_transfers (refund_of) WHERE refund_of IS NOT NULL',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP INDEX ledger_transfers_refund_of_index');
  await knex.raw('CREATE INDEX ledger_transfers_refund_of_index ON ledger_transfers (refund_of)');
}

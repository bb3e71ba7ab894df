import type { Knex } from 'knex';

/**
 * What a claimed Idempotency-Key's request creates that outlives it (a job, a rental, a volume, a burst order):
 * a claim whose process died with it set is never run again, since the resource may exist (src/domain/billing/idempotency.ts).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.text('creates').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotency_keys', (t) => {
    t.dropColumn('creates');
  });
}

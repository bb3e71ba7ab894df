import type { Knex } from 'knex';

/**
 * Async jobs (src/adapters/job-store; SPEC 3.1): one row per job, its payload as JSON text, `version` for the
 * compare-and-set of every change, and the lease of the worker advancing it. Indexed for the claim of jobs whose
 * lease ran out (status, lease_until_ms) and for the expiry sweep.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('jobs', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('kind').notNullable();
    t.text('status').notNullable(); // pending | processing | completed | failed
    t.bigInteger('created_at_ms').notNullable();
    t.bigInteger('updated_at_ms').notNullable();
    t.bigInteger('expires_at_ms').notNullable();
    t.text('data').notNullable();
    t.bigInteger('version').notNullable();
    t.text('lease_owner').nullable();
    t.bigInteger('lease_until_ms').notNullable();
    t.index(['status', 'lease_until_ms'], 'jobs_claim_index');
    t.index(['expires_at_ms'], 'jobs_expires_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('jobs');
}

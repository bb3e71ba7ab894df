import type { Knex } from 'knex';

/**
 * Machine reliability (research/marketplace.md §1b, RunPod's formula): the minutes each machine's agent was heard
 * in, and the 30-day rolling uptime computed from them, kept on the machine for search and sort.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('machine_uptime', (t) => {
    t.text('machine_id').notNullable();
    t.bigInteger('minute').notNullable(); // epoch minutes
    t.primary(['machine_id', 'minute']);
  });
  await knex.schema.alterTable('machines', (t) => {
    t.integer('reliability_bp').notNullable().defaultTo(10_000);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('machines', (t) => {
    t.dropColumn('reliability_bp');
  });
  await knex.schema.dropTableIfExists('machine_uptime');
}

import type { Knex } from 'knex';

/**
 * Chats and their history (src/adapters/chat-store; SPEC 4.2 image messages in chats): dialogues are numbered per
 * chat (`seq`) in the order they were added; a placeholder is found by its image job.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('chats', (t) => {
    t.text('id').primary();
    t.text('account_id').notNullable();
    t.text('title').notNullable();
    t.bigInteger('created_at_ms').notNullable();
    t.index(['account_id', 'created_at_ms'], 'chats_account_index');
  });
  await knex.schema.createTable('chat_dialogues', (t) => {
    t.text('id').primary();
    t.text('chat_id').notNullable();
    t.bigInteger('seq').notNullable();
    t.text('role').notNullable();
    t.text('type').notNullable(); // text | image | image_pending | image_failed
    t.text('content').nullable();
    t.text('model').nullable();
    t.text('job_id').nullable();
    t.text('image').nullable(); // JSON {url, mime_type}
    t.bigInteger('created_at_ms').notNullable();
    t.unique(['chat_id', 'seq'], { indexName: 'chat_dialogues_order' });
    t.index(['chat_id', 'job_id'], 'chat_dialogues_job_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('chat_dialogues');
  await knex.schema.dropTableIfExists('chats');
}

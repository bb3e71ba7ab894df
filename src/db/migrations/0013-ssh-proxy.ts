import type { Knex } from 'knex';

/**
 * The SSH proxy (SPEC 4.5 `ssh-proxy/ensure`; src/adapters/tunnel-store): each rental's port on the proxy host,
 * unique across gateway processes, and the connections waiting for a machine's agent to open a tunnel.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('ssh_ports', (t) => {
    t.integer('port').primary();
    t.text('instance_id').notNullable().unique({ indexName: 'ssh_ports_instance_unique' });
    t.bigInteger('allocated_at_ms').notNullable();
  });
  await knex.schema.createTable('tunnel_requests', (t) => {
    t.text('token').primary();
    t.text('machine_id').notNullable();
    t.text('instance_id').notNullable();
    t.text('tunnel_host').notNullable(); // the proxy process holding the client: where the agent dials back
    t.integer('tunnel_port').notNullable();
    t.bigInteger('created_at_ms').notNullable();
    t.index(['machine_id', 'created_at_ms'], 'tunnel_requests_machine_index');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('tunnel_requests');
  await knex.schema.dropTableIfExists('ssh_ports');
}

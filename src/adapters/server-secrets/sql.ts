import type { Database } from '../../db/connect.js';
import type { ServerSecrets } from './index.js';

/** The server-secrets port over knex (migration 0031): insert-if-absent, then read whichever value won. */
export class SqlServerSecrets implements ServerSecrets {
  constructor(private readonly db: Database) {}

  async getOrCreate(name: string, make: () => string, nowMs: number): Promise<string> {
    const { knex } = this.db;
    await knex('server_secrets').insert({ name, value: make(), created_at_ms: nowMs }).onConflict('name').ignore();
    const row = (await knex('server_secrets').select('value').where('name', name).first()) as { value: string };
    return row.value;
  }
}

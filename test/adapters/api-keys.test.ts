import { describe, expect, it } from 'vitest';
import { MemoryApiKeyStore } from '../../src/adapters/api-keys/memory.js';
import { SqlApiKeyStore } from '../../src/adapters/api-keys/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { apiKeyStoreConformance, type StoreUnderTest } from './api-keys.conformance.js';
import { apiKeyLocksConformance } from './api-keys-locks.conformance.js';

const inMemory = async (): Promise<StoreUnderTest> => ({ store: new MemoryApiKeyStore(), cleanup: async () => {} });

async function onSqlite(): Promise<StoreUnderTest> {
  const db = await sqliteMemory();
  return { store: new SqlApiKeyStore(db), cleanup: () => db.knex.destroy() };
}

async function onPostgres(): Promise<StoreUnderTest> {
  const { db, drop } = await postgresSchema();
  return { store: new SqlApiKeyStore(db), cleanup: drop };
}

for (const [name, make] of [
  ['memory', inMemory],
  ['sqlite', onSqlite],
  ['postgres', onPostgres],
] as const) {
  apiKeyStoreConformance(name, make);
  apiKeyLocksConformance(name, make);
}

describe('SqlApiKeyStore ownership of the database', () => {
  it('leaves a caller-owned database open on close()', async () => {
    const db = await sqliteMemory();
    try {
      await new SqlApiKeyStore(db).close();
      await expect(new SqlApiKeyStore(db).ping()).resolves.toBeUndefined();
    } finally {
      await db.knex.destroy();
    }
  });

  it('destroys the pool on close() when told it owns the database', async () => {
    const db = await sqliteMemory();
    const store = new SqlApiKeyStore(db, { ownsDatabase: true });
    await store.close();
    await expect(store.ping()).rejects.toThrow();
  });
});

import { MemoryMarketStore } from '../../src/adapters/market-store/memory.js';
import { SqlMarketStore } from '../../src/adapters/market-store/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { marketStoreConformance } from './market-store.conformance.js';

marketStoreConformance('memory', async () => ({ store: new MemoryMarketStore(), cleanup: async () => {} }));

marketStoreConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlMarketStore(db), cleanup: () => db.knex.destroy() };
});

marketStoreConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlMarketStore(db), cleanup: drop };
});

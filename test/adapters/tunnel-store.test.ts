import { MemoryTunnelStore } from '../../src/adapters/tunnel-store/memory.js';
import { SqlTunnelStore } from '../../src/adapters/tunnel-store/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { tunnelStoreConformance } from './tunnel-store.conformance.js';

tunnelStoreConformance('memory', async () => ({ store: new MemoryTunnelStore(), cleanup: async () => {} }));

tunnelStoreConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlTunnelStore(db), cleanup: () => db.knex.destroy() };
});

tunnelStoreConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlTunnelStore(db), cleanup: drop };
});

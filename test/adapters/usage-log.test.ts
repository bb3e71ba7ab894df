import { MemoryUsageLogStore } from '../../src/adapters/usage-log/memory.js';
import { SqlUsageLogStore } from '../../src/adapters/usage-log/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { usageLogConformance } from './usage-log.conformance.js';

usageLogConformance('memory', async () => ({ store: new MemoryUsageLogStore(), cleanup: async () => {} }));

usageLogConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlUsageLogStore(db), cleanup: () => db.knex.destroy() };
});

usageLogConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlUsageLogStore(db), cleanup: drop };
});

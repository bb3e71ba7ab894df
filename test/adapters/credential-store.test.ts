import { MemoryCredentialStore } from '../../src/adapters/credential-store/memory.js';
import { SqlCredentialStore } from '../../src/adapters/credential-store/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { credentialStoreConformance } from './credential-store.conformance.js';

credentialStoreConformance('memory', async () => ({ store: new MemoryCredentialStore(), cleanup: async () => {} }));

credentialStoreConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlCredentialStore(db), cleanup: () => db.knex.destroy() };
});

credentialStoreConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlCredentialStore(db), cleanup: drop };
});

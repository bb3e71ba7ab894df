import { MemorySshKeyStore } from '../../src/adapters/ssh-key-store/memory.js';
import { SqlSshKeyStore } from '../../src/adapters/ssh-key-store/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { sshKeyStoreConformance } from './ssh-key-store.conformance.js';

sshKeyStoreConformance('memory', async () => ({ store: new MemorySshKeyStore(), cleanup: async () => {} }));

sshKeyStoreConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlSshKeyStore(db), cleanup: () => db.knex.destroy() };
});

sshKeyStoreConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlSshKeyStore(db), cleanup: drop };
});

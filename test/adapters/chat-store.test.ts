import { MemoryChatStore } from '../../src/adapters/chat-store/memory.js';
import { SqlChatStore } from '../../src/adapters/chat-store/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { chatStoreConformance } from './chat-store.conformance.js';

chatStoreConformance('memory', async () => ({ store: new MemoryChatStore(), cleanup: async () => {} }));

chatStoreConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlChatStore(db), cleanup: () => db.knex.destroy() };
});

chatStoreConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlChatStore(db), cleanup: drop };
});

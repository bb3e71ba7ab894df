import { MemoryIdempotencyStore } from '../../src/adapters/idempotency/memory.js';
import { SqlIdempotencyStore } from '../../src/adapters/idempotency/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { idempotencyConformance } from './idempotency.conformance.js';

idempotencyConformance('memory', async () => ({ store: new MemoryIdempotencyStore(), cleanup: async () => {} }));

idempotencyConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlIdempotencyStore(db), cleanup: () => db.knex.destroy() };
});

idempotencyConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlIdempotencyStore(db), cleanup: drop };
});

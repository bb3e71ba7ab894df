import { MemoryLedger } from '../../src/adapters/ledger/memory.js';
import { SqlLedger } from '../../src/adapters/ledger/sql.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { ledgerConformance } from './ledger.conformance.js';

ledgerConformance('memory', async () => ({ ledger: new MemoryLedger(), cleanup: async () => {} }));

ledgerConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { ledger: new SqlLedger(db), cleanup: () => db.knex.destroy() };
});

ledgerConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { ledger: new SqlLedger(db), cleanup: drop };
});

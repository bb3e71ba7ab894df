import { MemoryKeyBudgetStore } from '../../src/adapters/key-budget/memory.js';
import { SqlKeyBudgetStore } from '../../src/adapters/key-budget/sql.js';
import { memoryLedger } from '../../src/adapters/ledger/memory.js';
import { openLedger } from '../../src/adapters/ledger/open.js';
import { MemoryUsageLogStore } from '../../src/adapters/usage-log/memory.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { keyBudgetConformance } from './key-budget.conformance.js';

keyBudgetConformance('memory', async () => {
  const usage = new MemoryUsageLogStore();
  return { store: new MemoryKeyBudgetStore(usage), ledger: memoryLedger(usage), cleanup: async () => {} };
});

keyBudgetConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlKeyBudgetStore(db), ledger: openLedger(db), cleanup: () => db.knex.destroy() };
});

keyBudgetConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlKeyBudgetStore(db), ledger: openLedger(db), cleanup: drop };
});

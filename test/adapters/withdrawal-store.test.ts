import { MemoryWithdrawalStore } from '../../src/adapters/withdrawal-store/memory.js';
import { SqlWithdrawalStore } from '../../src/adapters/withdrawal-store/sql.js';
import { connectDatabase } from '../../src/db/connect.js';
import { postgresSchema, sqliteMemory, TEST_POSTGRES_URL } from '../setup/databases.js';
import { type WithdrawalStoreSubject, withdrawalStoreConformance } from './withdrawal-store.conformance.js';
import { withdrawalStoreStatesConformance } from './withdrawal-store-states.conformance.js';

const inMemory = async (): Promise<WithdrawalStoreSubject> => ({
  store: new MemoryWithdrawalStore(),
  cleanup: async () => {},
});

async function onSqliteMemory(): Promise<WithdrawalStoreSubject> {
  const db = await sqliteMemory();
  return { store: new SqlWithdrawalStore(db), cleanup: () => db.knex.destroy() };
}

/** One schema through two pools, as two processes see it. */
async function onPostgresTwice(): Promise<WithdrawalStoreSubject> {
  const { db, schema, drop } = await postgresSchema();
  const other = connectDatabase(TEST_POSTGRES_URL, { searchPath: schema });
  return {
    store: new SqlWithdrawalStore(db),
    other: new SqlWithdrawalStore(other),
    cleanup: async () => {
      await other.knex.destroy();
      await drop();
    },
  };
}

for (const [name, make] of [
  ['memory', inMemory],
  ['sqlite', onSqliteMemory],
  ['postgres, two pools', onPostgresTwice],
] as const) {
  withdrawalStoreConformance(name, make);
  withdrawalStoreStatesConformance(name, make);
}

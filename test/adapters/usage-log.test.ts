import type { UsageRecord } from '../../src/adapters/usage-log/index.js';
import { MemoryUsageLogStore } from '../../src/adapters/usage-log/memory.js';
import { rollupRow, SqlUsageLogStore, usageRow } from '../../src/adapters/usage-log/sql.js';
import { rollUp } from '../../src/adapters/usage-log/totals.js';
import type { Database } from '../../src/db/connect.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { usageLogConformance } from './usage-log.conformance.js';

const DAILY_SUMS = [
  'requests',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_micros',
  'billed_rub_micro',
  'unbilled_cost_micros',
];

/** The rows the ledger writes with each charge, written directly (the ledger suite covers that write path). */
async function seedRows(db: Database, records: readonly UsageRecord[]): Promise<void> {
  await db.knex.transaction(async (trx) => {
    for (let i = 0; i < records.length; i += 200)
      await trx('usage_records').insert(records.slice(i, i + 200).map(usageRow));
    const increments = Object.fromEntries(
      DAILY_SUMS.map((c) => [c, trx.raw('?? + excluded.??', [`usage_daily.${c}`, c])]),
    );
    for (const increment of rollUp(records)) {
      await trx('usage_daily')
        .insert(rollupRow(increment))
        .onConflict(['account_id', 'day', 'model', 'kind'])
        .merge(increments);
    }
  });
}

usageLogConformance('memory', async () => {
  const store = new MemoryUsageLogStore();
  return { store, seed: async (records) => store.append(records), cleanup: async () => {} };
});

usageLogConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return {
    store: new SqlUsageLogStore(db),
    seed: (records) => seedRows(db, records),
    cleanup: () => db.knex.destroy(),
  };
});

usageLogConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlUsageLogStore(db), seed: (records) => seedRows(db, records), cleanup: drop };
});

import { describe, expect, it } from 'vitest';
import type { BatchingOptions } from '../../src/adapters/ledger/batching-ledger.js';
import { memoryLedger } from '../../src/adapters/ledger/memory.js';
import { postgresLedger } from '../../src/adapters/ledger/postgres.js';
import { sqliteLedger } from '../../src/adapters/ledger/sqlite.js';
import type { UsageRecord } from '../../src/adapters/usage-log/index.js';
import { MemoryUsageLogStore } from '../../src/adapters/usage-log/memory.js';
import { SqlUsageLogStore } from '../../src/adapters/usage-log/sql.js';
import type { Database } from '../../src/db/connect.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { ledgerConformance } from './ledger.conformance.js';

/** A usage log whose writes can be made to fail, as a broken table would make them fail in SQL. */
class BreakableUsageLog extends MemoryUsageLogStore {
  broken = false;

  override insert(record: UsageRecord): void {
    if (this.broken) throw new Error('usage log unwritable');
    super.insert(record);
  }
}

/** Renames the usage table away and back: every usage-line insert fails meanwhile, as on a broken database. */
const renameUsageTable = (db: Database, from: string, to: string) => async () => {
  await db.knex.schema.renameTable(from, to);
};

ledgerConformance('memory', async (options: BatchingOptions) => {
  const usage = new BreakableUsageLog();
  return {
    ledger: memoryLedger(usage, options),
    usage,
    breakUsageLog: async () => void (usage.broken = true),
    repairUsageLog: async () => void (usage.broken = false),
    cleanup: async () => {},
    handsOff: false,
  };
});

ledgerConformance('sqlite', async (options) => {
  const db = await sqliteMemory();
  return {
    ledger: sqliteLedger(db, options),
    usage: new SqlUsageLogStore(db),
    breakUsageLog: renameUsageTable(db, 'usage_records', 'usage_records_away'),
    repairUsageLog: renameUsageTable(db, 'usage_records_away', 'usage_records'),
    cleanup: () => db.knex.destroy(),
    handsOff: false,
  };
});

ledgerConformance('postgres', async (options) => {
  const { db, drop } = await postgresSchema();
  return {
    ledger: postgresLedger(db, options),
    usage: new SqlUsageLogStore(db),
    breakUsageLog: renameUsageTable(db, 'usage_records', 'usage_records_away'),
    repairUsageLog: renameUsageTable(db, 'usage_records_away', 'usage_records'),
    cleanup: drop,
    handsOff: true,
  };
});

describe('the SQLite ledger sharing the pooled connection with knex', () => {
  it('interleaves with knex queries and transactions on other tables without deadlock or lost writes', async () => {
    const db = await sqliteMemory();
    try {
      const ledger = sqliteLedger(db);
      const accountId = 'acc_shared';
      await ledger.credit({
        id: 'cr_shared',
        accountId,
        amountMicros: 1_000_000n,
        lot: { currency: 'USD', fxRateRubMicro: 90_000_000n },
        nowMs: 1,
      });
      let stop = false;
      let selects = 0;
      const selectLoop = (async () => {
        for (; !stop; selects++) await db.knex.raw('select 1');
      })();
      // A knex transaction keeps the connection across several awaits: ledger calls must wait for it, not break into it.
      const knexTransactions = Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          db.knex.transaction(async (trx) => {
            await trx('accounts').insert({ id: `acc_${i}`, email: `${i}@example.com`, created_at_ms: 1 });
            await trx('accounts').where('id', `acc_${i}`).update({ discount_percent: 5 });
          }),
        ),
      );
      const ledgerCalls = Promise.all(
        Array.from({ length: 100 }, async (_, i) => {
          const h = await ledger.hold({ id: `hold_${i}`, accountId, amountMicros: 1_000n, nowMs: 2, ttlMs: 60_000 });
          if (!h.ok) throw new Error('hold refused');
          return ledger.settle({ holdId: h.hold.id, amountMicros: 400n, nowMs: 3 });
        }),
      );
      const settled = await ledgerCalls;
      await knexTransactions;
      stop = true;
      await selectLoop;

      expect(settled.every((s) => s.ok)).toBe(true);
      expect(selects).toBeGreaterThan(0);
      expect(await db.knex('accounts').count({ n: '*' }).first()).toEqual({ n: 20 });
      expect(await ledger.getBalance(accountId)).toEqual({
        accountId,
        availableMicros: 1_000_000n - 40_000n,
        heldMicros: 0n,
      });
      expect(await ledger.sumOfAllBalances()).toBe(0n);
      // The ledger's money reads return bigints; knex running the very same SQL text must still get plain numbers.
      const raw = (await db.knex.raw('SELECT available_micros, held_micros FROM ledger_balances WHERE account_id = ?', [
        accountId,
      ])) as unknown[];
      expect(raw).toEqual([{ available_micros: 960_000, held_micros: 0 }]);
    } finally {
      await db.knex.destroy();
    }
  });

  it('refuses a PostgreSQL database, as the PostgreSQL ledger refuses SQLite', () => {
    expect(() => sqliteLedger({ knex: {} as never, kind: 'postgres' })).toThrow(/SQLite/);
    expect(() => postgresLedger({ knex: {} as never, kind: 'sqlite' })).toThrow(/PostgreSQL/);
  });
});

import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/adapters/ledger/index.js';
import { MemoryLedger } from '../../src/adapters/ledger/memory.js';
import { SqlLedger } from '../../src/adapters/ledger/sql.js';
import { SqliteLedger } from '../../src/adapters/ledger/sqlite.js';
import { postgresSchema, sqliteMemory } from '../setup/databases.js';
import { ledgerConformance } from './ledger.conformance.js';

ledgerConformance('memory', async () => ({ ledger: new MemoryLedger(), cleanup: async () => {} }));

ledgerConformance('sqlite (knex)', async () => {
  const db = await sqliteMemory();
  return { ledger: new SqlLedger(db), cleanup: () => db.knex.destroy() };
});

ledgerConformance('sqlite (native)', async () => {
  const db = await sqliteMemory();
  return { ledger: new SqliteLedger(db), cleanup: () => db.knex.destroy() };
});

/** Every call goes to the other ledger than the previous one: both must read and write the same rows the same way. */
function alternating(a: Ledger, b: Ledger): Ledger {
  let calls = 0;
  return new Proxy(a, {
    get(_target, prop) {
      const target = calls++ % 2 === 0 ? a : b;
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

ledgerConformance('sqlite (knex and native on one database)', async () => {
  const db = await sqliteMemory();
  return { ledger: alternating(new SqlLedger(db), new SqliteLedger(db)), cleanup: () => db.knex.destroy() };
});

ledgerConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { ledger: new SqlLedger(db), cleanup: drop };
});

describe('SqliteLedger sharing the pooled connection with knex', () => {
  it('interleaves with knex queries and transactions on other tables without deadlock or lost writes', async () => {
    const db = await sqliteMemory();
    try {
      const ledger = new SqliteLedger(db);
      const accountId = 'acc_shared';
      await ledger.credit({ id: 'cr_shared', accountId, amountMicros: 1_000_000n, lot: { currency: 'USD', fxRateRubMicro: 90_000_000n }, nowMs: 1 });
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
      expect(await ledger.getBalance(accountId)).toEqual({ accountId, availableMicros: 1_000_000n - 40_000n, heldMicros: 0n });
      expect(await ledger.sumOfAllBalances()).toBe(0n);
      // The ledger's money reads return bigints; knex running the very same SQL text must still get plain numbers.
      const raw = (await db.knex.raw('SELECT available_micros, held_micros FROM ledger_balances WHERE account_id = ?', [accountId])) as unknown[];
      expect(raw).toEqual([{ available_micros: 960_000, held_micros: 0 }]);
    } finally {
      await db.knex.destroy();
    }
  });

  it('refuses a PostgreSQL database', () => {
    expect(() => new SqliteLedger({ knex: {} as never, kind: 'postgres' })).toThrow(/SQLite/);
  });
});

/**
 * BatchBook (src/adapters/ledger/batch-book.ts) writes a changed balance or transfer once per batch, so the CHECK
 * constraints the database would apply to each UPDATE are applied by it to each step: the cases the conformance
 * suite cannot reach, since correct operations never break a constraint.
 */
import type BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchBook } from '../../src/adapters/ledger/batch-book.js';
import { newEntry } from '../../src/adapters/ledger/entries.js';
import { SYSTEM_ACCOUNTS } from '../../src/adapters/ledger/index.js';
import type { PoolClient } from '../../src/adapters/ledger/sqlite.js';
import { type Prepared, preparedFor } from '../../src/adapters/ledger/sqlite-book.js';
import type { Database } from '../../src/db/connect.js';
import { sqliteMemory } from '../setup/databases.js';

describe('BatchBook', () => {
  let db: Database;
  let pool: PoolClient;
  let conn: BetterSqlite3.Database;
  let prepared: Prepared;

  beforeAll(async () => {
    db = await sqliteMemory();
    pool = db.knex.client as PoolClient;
    conn = await pool.acquireConnection();
    prepared = preparedFor(conn);
  });
  afterAll(async () => {
    await pool.releaseConnection(conn);
    await db.knex.destroy();
  });

  /** Runs `work` on a BatchBook in a transaction that is always rolled back. */
  function inBatch(work: (book: BatchBook) => void): void {
    expect(() =>
      prepared.transaction((stored) => {
        work(new BatchBook(stored));
        throw new Error('rolled back');
      }),
    ).toThrow('rolled back');
  }

  it('refuses a step that takes a user balance below zero, available or held, even if a later step would restore it', () => {
    inBatch((book) => {
      book.moveBalance('acc_a', 5n, 0n);
      expect(() => book.moveBalance('acc_a', -6n, 0n)).toThrow(/acc_a would break its constraint/);
      expect(() => book.moveBalance('acc_b', 0n, -1n)).toThrow(/acc_b would break its constraint/);
    });
  });

  it('lets a system account go below zero in available, never in held', () => {
    inBatch((book) => {
      book.moveBalance(SYSTEM_ACCOUNTS.deposits, -10n, 0n);
      expect(book.balance(SYSTEM_ACCOUNTS.deposits)).toEqual({ available: -10n, held: 0n });
      expect(() => book.moveBalance(SYSTEM_ACCOUNTS.revenue, 0n, -1n)).toThrow(/would break its constraint/);
    });
  });

  it('refuses an update that leaves a transfer with a negative amount or more refunded than posted', () => {
    inBatch((book) => {
      const e = newEntry({ id: 'chg:1', accountId: 'acc_a', amountMicros: 10n, nowMs: 1 }, 'debit');
      book.insertEntry(e);
      expect(() => book.updateEntry({ ...e, amountMicros: -1n })).toThrow(/chg:1 would break its constraint/);
      expect(() => book.updateEntry({ ...e, refundedMicros: 11n })).toThrow(/chg:1 would break its constraint/);
      book.updateEntry({ ...e, refundedMicros: 10n });
      expect(book.entry('chg:1')).toMatchObject({ refundedMicros: 10n });
    });
  });

  it('writes the moves of a batch once, at flush, and reads its own writes before', () => {
    prepared.transaction((stored) => {
      const book = new BatchBook(stored);
      book.moveBalance('acc_c', 7n, 3n);
      book.moveBalance('acc_c', -2n, 1n);
      expect(book.balance('acc_c')).toEqual({ available: 5n, held: 4n });
      expect(stored.balance('acc_c')).toBeNull();
      book.flush();
      expect(stored.balance('acc_c')).toEqual({ available: 5n, held: 4n });
    });
  });
});

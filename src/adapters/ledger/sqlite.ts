import type BetterSqlite3 from 'better-sqlite3';
import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import { BatchBook } from './batch-book.js';
import { BatchingLedger, type BatchingOptions, type LedgerEngine, type OpResult } from './batching-ledger.js';
import type { Entry } from './entries.js';
import type { Balance, Lot, Micros } from './index.js';
import { applyOp, BatchTotals, expireDue, type LedgerOp } from './operations.js';
import { type LotRow, toLot } from './sql-rows.js';
import { preparedFor, type SqliteBook } from './sqlite-book.js';

/** The part of knex's client that lends out its pooled connection (typed `any` by knex). */
export interface PoolClient {
  acquireConnection(): Promise<BetterSqlite3.Database>;
  releaseConnection(conn: BetterSqlite3.Database): Promise<void>;
}

/** postedSpend without a bound: the whole int64 range, so one statement (and the range index) serves every call. */
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/**
 * The embedded engine: each batch is one synchronous better-sqlite3 transaction of statements prepared once,
 * on knex's single pooled connection (so it waits for any knex query or transaction in flight and never opens a
 * second connection); while it holds the connection it never awaits, so nothing else can interleave.
 * `BEGIN IMMEDIATE` for writes: a deferred transaction that reads first could not upgrade to a writer if another
 * process (the admin CLI) committed in between; IMMEDIATE waits on busy_timeout instead, once, at BEGIN.
 */
class SqliteEngine implements LedgerEngine {
  readonly firstWrite = 'end-of-turn';
  private readonly knex: Knex;

  constructor(db: Database) {
    if (db.kind !== 'sqlite') throw new Error(`the SQLite ledger needs a SQLite database (got ${db.kind})`);
    this.knex = db.knex;
  }

  apply(ops: readonly LedgerOp[]): Promise<OpResult[]> {
    return this.run('immediate', (stored) => {
      const book = new BatchBook(stored);
      const totals = new BatchTotals();
      // Any throw rolls the whole batch back; BatchingLedger then retries its operations one by one.
      const results = ops.map((op): OpResult => ({ ok: true, outcome: applyOp(book, op, totals) }));
      totals.writeTo(book);
      book.flush();
      return results;
    });
  }

  expire(nowMs: number, limit: number): Promise<number> {
    return this.run('immediate', (book) => expireDue(book, nowMs, limit));
  }

  entry(id: string): Promise<Entry | null> {
    return this.run('deferred', (book) => book.entry(id));
  }

  async balance(accountId: string): Promise<Balance> {
    const cell = await this.run('deferred', (book) => book.balance(accountId));
    return { accountId, availableMicros: cell?.available ?? 0n, heldMicros: cell?.held ?? 0n };
  }

  listLots(accountId: string): Promise<Lot[]> {
    return this.run('deferred', (book) => (book.s.spendableLots.all(accountId) as LotRow[]).map(toLot));
  }

  postedSpend(accountId: string, range: { fromMs?: number; toMs?: number }): Promise<Micros> {
    const bounds = { account: accountId, from: range.fromMs ?? INT64_MIN, to: range.toMs ?? INT64_MAX };
    return this.run('deferred', (book) => (book.s.postedSpend.get(bounds) as { total: bigint }).total);
  }

  sumOfAllBalances(): Promise<Micros> {
    return this.run('deferred', (book) => (book.s.sumOfBalances.get() as { total: bigint }).total);
  }

  /** Borrows knex's pooled connection and runs `work` as one synchronous transaction on it. */
  private async run<T>(begin: 'immediate' | 'deferred', work: (book: SqliteBook) => T): Promise<T> {
    const pool = this.knex.client as PoolClient;
    const conn = await pool.acquireConnection();
    try {
      // A transaction left open by its owner would swallow ours as a savepoint: refuse rather than mix writes.
      if (conn.inTransaction) throw new Error('ledger: the pooled SQLite connection is still inside a transaction');
      return preparedFor(conn).transaction[begin](work) as T;
    } finally {
      await pool.releaseConnection(conn);
    }
  }
}

/** The embedded ledger on the database's SQLite file (README.md). */
export function sqliteLedger(db: Database, options?: BatchingOptions): BatchingLedger {
  return new BatchingLedger(new SqliteEngine(db), options);
}

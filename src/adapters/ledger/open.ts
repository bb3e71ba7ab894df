import type { Database } from '../../db/connect.js';
import type { BatchingOptions } from './batching-ledger.js';
import type { Ledger } from './index.js';
import { postgresLedger } from './postgres.js';
import { sqliteLedger } from './sqlite.js';

/** The ledger engine of a database: SQLite in-process, PostgreSQL through ledger_apply (README.md "Shape"). */
export function openLedger(db: Database, options?: BatchingOptions): Ledger {
  return db.kind === 'sqlite' ? sqliteLedger(db, options) : postgresLedger(db, options);
}

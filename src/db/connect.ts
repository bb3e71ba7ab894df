import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import knexFactory, { type Knex } from 'knex';
import type pg from 'pg';
import { onFirstUse } from '../lib/on-first-use.js';
import { BACKSTOP_CHECKPOINT_PAGES } from './sqlite-checkpointer.js';

/**
 * The PostgreSQL driver, loaded with the first PostgreSQL URL (the embedded default never holds it; knex loads the
 * same module for its pool). pg returns int8 as a string by default (TOOLCHAIN.md); money columns are int8
 * micro-USD and times are int8 milliseconds, so they are parsed as BigInt and each adapter converts explicitly.
 */
const loadPgWithBigInts = onFirstUse((): void => {
  const driver = createRequire(import.meta.url)('pg') as typeof pg;
  driver.types.setTypeParser(20, (value: string) => BigInt(value));
});

export type DatabaseKind = 'sqlite' | 'postgres';

export interface Database {
  knex: Knex;
  kind: DatabaseKind;
  /** SQLite: the database file (null in memory). */
  file?: string | null;
}

/**
 * Opens the database named by a DATABASE_URL: `sqlite:<path>` (`sqlite::memory:` for a private in-memory
 * database) or `postgres://…`. `searchPath` isolates a PostgreSQL schema (tests use one per suite).
 */
interface SqliteConnection {
  pragma(source: string): unknown;
  prepare(source: string): unknown;
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * knex prepares every query anew on better-sqlite3, and preparing costs more than running a small statement.
 * The same SQL text is prepared once per connection and reused (statements run synchronously, one at a time,
 * so sharing one is safe); the cache is bounded for the rare queries whose text varies (IN lists, batches).
 */
function cachePreparedStatements(conn: SqliteConnection): void {
  const prepare = conn.prepare.bind(conn);
  const cache = new Map<string, unknown>();
  conn.prepare = (source: string) => {
    let statement = cache.get(source);
    if (statement === undefined) {
      statement = prepare(source);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(source, statement);
    }
    return statement;
  };
}

export interface DatabaseLog {
  warn(message: unknown): void;
  error(message: unknown): void;
}

/** knex writes its own warnings to the console unless told otherwise; route them to our log, or drop them. */
const SILENT: DatabaseLog = { warn: () => undefined, error: () => undefined };

function knexLog(log: DatabaseLog) {
  return {
    warn: (m: unknown) => log.warn(m),
    error: (m: unknown) => log.error(m),
    deprecate: (m: unknown) => log.warn(m),
    debug: () => undefined,
  };
}

export interface ConnectOptions {
  /** PostgreSQL: the schema to work in (tests use one per suite). */
  searchPath?: string;
  log?: DatabaseLog;
  /** SQLite: FULL adds an fsync to every commit, for power-loss durability of each one (default NORMAL). */
  sqliteSynchronous?: 'NORMAL' | 'FULL';
}

/** The SQLite file's directory, created if missing; a file in its place is said as such, not as mkdir's EEXIST. */
function makeParentDirectory(filename: string): void {
  try {
    mkdirSync(dirname(filename), { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTDIR')
      throw new Error(`cannot create the directory ${dirname(filename)}: a file is in its path`);
    throw err;
  }
}

export function connectDatabase(url: string, options: ConnectOptions = {}): Database {
  const log = knexLog(options.log ?? SILENT);
  if (url.startsWith('sqlite:')) {
    const filename = url.slice('sqlite:'.length) || ':memory:';
    if (filename !== ':memory:') makeParentDirectory(filename);
    const knex = knexFactory({
      client: 'better-sqlite3',
      log,
      connection: { filename },
      useNullAsDefault: true,
      // One connection: SQLite serialises writers anyway, and a single handle keeps ':memory:' one database.
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: SqliteConnection, done: (err: Error | null) => void) => {
          cachePreparedStatements(conn);
          conn.pragma('journal_mode = WAL');
          // WAL + NORMAL: a commit is durable once written to the WAL, without an fsync per commit; a killed process
          // loses nothing, an OS crash or power cut at most the last commits, whole (README, SQLITE_SYNCHRONOUS).
          conn.pragma(`synchronous = ${options.sqliteSynchronous ?? 'NORMAL'}`);
          // Checkpoints run on the checkpoint worker (sqlite-checkpointer.ts); this is only its backstop, and the
          // WAL file is cut back to 64 MB whenever it restarts.
          conn.pragma(`wal_autocheckpoint = ${BACKSTOP_CHECKPOINT_PAGES}`);
          conn.pragma('journal_size_limit = 67108864');
          conn.pragma('busy_timeout = 5000');
          conn.pragma('foreign_keys = ON');
          done(null);
        },
      },
    });
    return { knex, kind: 'sqlite', file: filename === ':memory:' ? null : filename };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    loadPgWithBigInts();
    const knex = knexFactory({
      client: 'pg',
      log,
      connection: url,
      searchPath: options.searchPath ? [options.searchPath] : undefined,
      pool: { min: 0, max: 10 },
    });
    return { knex, kind: 'postgres' };
  }
  throw new Error(`DATABASE_URL must start with sqlite: or postgres:// (got ${JSON.stringify(url.split(':')[0])})`);
}

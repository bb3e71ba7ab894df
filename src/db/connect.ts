import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

// pg returns int8 as a string by default (TOOLCHAIN.md); money columns are int8 micro-USD and times are int8
// milliseconds, so parse them as BigInt and let each adapter convert explicitly.
pg.types.setTypeParser(20, (value: string) => BigInt(value));

export type DatabaseKind = 'sqlite' | 'postgres';

export interface Database {
  knex: Knex;
  kind: DatabaseKind;
}

/**
 * Opens the database named by a DATABASE_URL: `sqlite:<path>` (`sqlite::memory:` for a private in-memory
 * database) or `postgres://…`. `searchPath` isolates a PostgreSQL schema (tests use one per suite).
 */
export interface DatabaseLog {
  warn(message: unknown): void;
  error(message: unknown): void;
}

/** knex writes its own warnings to the console unless told otherwise; route them to our log, or drop them. */
const SILENT: DatabaseLog = { warn: () => undefined, error: () => undefined };

function knexLog(log: DatabaseLog) {
  return { warn: (m: unknown) => log.warn(m), error: (m: unknown) => log.error(m), deprecate: (m: unknown) => log.warn(m), debug: () => undefined };
}

export function connectDatabase(url: string, options: { searchPath?: string; log?: DatabaseLog } = {}): Database {
  const log = knexLog(options.log ?? SILENT);
  if (url.startsWith('sqlite:')) {
    const filename = url.slice('sqlite:'.length) || ':memory:';
    if (filename !== ':memory:') mkdirSync(dirname(filename), { recursive: true });
    const knex = knexFactory({
      client: 'better-sqlite3',
      log,
      connection: { filename },
      useNullAsDefault: true,
      // One connection: SQLite serialises writers anyway, and a single handle keeps ':memory:' one database.
      pool: {
        min: 1,
        max: 1,
        afterCreate: (conn: { pragma: (s: string) => void }, done: (err: Error | null) => void) => {
          conn.pragma('journal_mode = WAL');
          conn.pragma('busy_timeout = 5000');
          conn.pragma('foreign_keys = ON');
          done(null);
        },
      },
    });
    return { knex, kind: 'sqlite' };
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
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

/**
 * Databases for storage tests: a private in-memory SQLite, and a fresh PostgreSQL schema per suite so suites
 * (and people) running at the same time never see each other's rows. PostgreSQL is required, never skipped.
 */
import { randomBytes } from 'node:crypto';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';

export const TEST_POSTGRES_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** A migrated `sqlite::memory:` database; the caller destroys `db.knex` when done. */
export async function sqliteMemory(): Promise<Database> {
  const db = connectDatabase('sqlite::memory:');
  await migrateToLatest(db);
  return db;
}

export interface PostgresSchema {
  db: Database;
  schema: string;
  /** Drops the schema with everything in it and destroys the pool. */
  drop(): Promise<void>;
}

/**
 * A migrated PostgreSQL database confined to a new, uniquely named schema (via search_path); `migrated: false`
 * leaves the schema empty, for a test that migrates it its own way.
 */
export async function postgresSchema({ migrated = true } = {}): Promise<PostgresSchema> {
  const schema = `t_${process.pid}_${randomBytes(6).toString('hex')}`;
  const admin = connectDatabase(TEST_POSTGRES_URL);
  try {
    await admin.knex.raw('create schema ??', [schema]);
  } finally {
    await admin.knex.destroy();
  }
  const db = connectDatabase(TEST_POSTGRES_URL, { searchPath: schema });
  const drop = async () => {
    try {
      await db.knex.raw('drop schema if exists ?? cascade', [schema]);
    } finally {
      await db.knex.destroy();
    }
  };
  try {
    if (migrated) await migrateToLatest(db);
  } catch (err) {
    await drop();
    throw err;
  }
  return { db, schema, drop };
}

/** The two storage modes a harness runs on: the embedded SQLite default, and a fresh PostgreSQL schema (its env). */
export const HARNESS_DATABASES = [
  { name: 'SQLite', open: async () => ({ env: {} as Record<string, string>, drop: async () => undefined }) },
  {
    name: 'PostgreSQL',
    open: async () => {
      const pg = await postgresSchema();
      return {
        env: { DATABASE_URL: `${TEST_POSTGRES_URL}?options=-c%20search_path%3D${pg.schema}` } as Record<string, string>,
        drop: () => pg.drop(),
      };
    },
  },
];

/**
 * Upgrades equal fresh installs (src/adapters/ledger/README.md "Upgrades"). Every other suite migrates a fresh
 * database, so a change that reaches only new databases would pass them all. Here a database is brought to the
 * oldest schema, given the functions of an older release, and migrated forward one release at a time; its schema
 * must then be the one a fresh database migrated straight to the latest gets: functions (signature and body),
 * tables and columns, indexes and constraints. And a function set whose SQL changed is installed at the next start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { functionSetHash, installFunctionSet } from '../../src/db/install-functions.js';
import { LEDGER_FUNCTIONS_SQL } from '../../src/db/ledger-functions/ledger-functions.sql.js';
import { migrateOneStep, migrateToLatest } from '../../src/db/migrate.js';
import { type PostgresSchema, postgresSchema, sqliteMemory, TEST_POSTGRES_URL } from '../setup/databases.js';

/** The first migration that created ledger functions: an older release installed its own version of them there. */
const FIRST_WITH_FUNCTIONS = '0005-ledger-batches';

/** The ledger functions as an older release had them: one body differs, and one function is gone since. */
const OLDER_RELEASE_SQL = `${LEDGER_FUNCTIONS_SQL.replace('BEGIN\n', 'BEGIN\n  -- as an older release wrote it\n')}
CREATE OR REPLACE FUNCTION ledger_retired(p integer) RETURNS integer LANGUAGE sql AS 'SELECT p';`;

const rowsOf = async <T>(db: Database, sql: string, bindings: string[] = []) =>
  ((await db.knex.raw(sql, bindings)) as { rows: T[] }).rows;

/** The schema's shape, its own name replaced by `<schema>` so two schemas compare. */
async function postgresShape(pg: PostgresSchema) {
  const { db, schema } = pg;
  const named = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll(schema, '<schema>'));
  return named({
    functions: await rowsOf(
      db,
      `SELECT p.oid::regprocedure::text AS signature, pg_get_functiondef(p.oid) AS definition FROM pg_proc p
        WHERE p.pronamespace = ?::regnamespace ORDER BY 1`,
      [schema],
    ),
    columns: await rowsOf(
      db,
      `SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default
         FROM information_schema.columns WHERE table_schema = ? ORDER BY table_name, ordinal_position`,
      [schema],
    ),
    indexes: await rowsOf(
      db,
      'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = ? ORDER BY indexname',
      [schema],
    ),
    constraints: await rowsOf(
      db,
      `SELECT c.conrelid::regclass::text AS table_name, c.conname, c.contype, pg_get_constraintdef(c.oid) AS definition
         FROM pg_constraint c WHERE c.connamespace = ?::regnamespace ORDER BY 1, 2`,
      [schema],
    ),
  });
}

/** Every migration in its own batch, as releases shipped them; returns the names run, in order. */
async function upgradeStepByStep(db: Database, afterEach: (name: string) => Promise<void>): Promise<string[]> {
  const names: string[] = [];
  for (let name = await migrateOneStep(db); name !== null; name = await migrateOneStep(db)) {
    names.push(name);
    await afterEach(name);
  }
  await migrateToLatest(db); // the start of today's release: nothing left to migrate, the functions to install
  return names;
}

describe('PostgreSQL: a database upgraded from the oldest schema equals a fresh one', () => {
  let fresh: PostgresSchema;
  let upgraded: PostgresSchema;
  let steps: string[];

  beforeAll(async () => {
    fresh = await postgresSchema();
    upgraded = await postgresSchema({ migrated: false });
    steps = await upgradeStepByStep(upgraded.db, async (name) => {
      if (name === FIRST_WITH_FUNCTIONS) await upgraded.db.knex.raw(OLDER_RELEASE_SQL);
    });
  });

  afterAll(async () => {
    await fresh?.drop();
    await upgraded?.drop();
  });

  it('ran every migration one release at a time, from the first', () => {
    expect(steps[0]).toBe('0001-accounts-and-keys');
    expect(steps).toContain(FIRST_WITH_FUNCTIONS);
    expect(steps.length).toBeGreaterThan(20);
  });

  it('has the same functions, tables, columns, indexes and constraints', async () => {
    const [upgradedShape, freshShape] = await Promise.all([postgresShape(upgraded), postgresShape(fresh)]);
    expect(freshShape.functions.length).toBeGreaterThan(15);
    expect(freshShape.indexes.length).toBeGreaterThan(10);
    expect(upgradedShape).toEqual(freshShape);
  });

  it('records the same function set version', async () => {
    const recorded = () => upgraded.db.knex('schema_functions').select('name', 'sha256');
    expect(await recorded()).toEqual([{ name: 'ledger', sha256: functionSetHash(LEDGER_FUNCTIONS_SQL) }]);
    expect(await fresh.db.knex('schema_functions').select('name', 'sha256')).toEqual(await recorded());
  });
});

describe('PostgreSQL: the ledger functions are installed by content', () => {
  let pg: PostgresSchema;
  const definitions = async () =>
    (
      await rowsOf<{ definition: string }>(
        pg.db,
        `SELECT pg_get_functiondef(p.oid) AS definition FROM pg_proc p
          WHERE p.pronamespace = current_schema()::regnamespace ORDER BY p.oid::regprocedure::text`,
      )
    ).map((row) => row.definition);
  const recordedHash = async () => (await pg.db.knex('schema_functions').where({ name: 'ledger' }).first()).sha256;

  beforeAll(async () => {
    pg = await postgresSchema();
  });
  afterAll(() => pg.drop());

  it('installs an edited SQL, then the source of today again at the next start', async () => {
    const today = await definitions();
    expect(await installFunctionSet(pg.db.knex, { name: 'ledger', sql: OLDER_RELEASE_SQL })).toBe(true);
    const edited = await definitions();
    expect(edited.some((body) => body.includes('-- as an older release wrote it'))).toBe(true);
    expect(edited.some((body) => body.includes('ledger_retired'))).toBe(true);
    expect(await recordedHash()).toBe(functionSetHash(OLDER_RELEASE_SQL));

    await migrateToLatest(pg.db);
    expect(await definitions()).toEqual(today);
    expect(await recordedHash()).toBe(functionSetHash(LEDGER_FUNCTIONS_SQL));
  });

  it('leaves the functions alone when their hash is recorded', async () => {
    const before = await pg.db.knex('schema_functions').where({ name: 'ledger' }).first();
    expect(await installFunctionSet(pg.db.knex, { name: 'ledger', sql: LEDGER_FUNCTIONS_SQL })).toBe(false);
    expect(await pg.db.knex('schema_functions').where({ name: 'ledger' }).first()).toEqual(before);
  });

  it('installs once when two processes start at the same time', async () => {
    const other = connectDatabase(TEST_POSTGRES_URL, { searchPath: pg.schema });
    try {
      const edited = `${LEDGER_FUNCTIONS_SQL}\n-- edited`;
      const installed = await Promise.all([
        installFunctionSet(pg.db.knex, { name: 'ledger', sql: edited }),
        installFunctionSet(other.knex, { name: 'ledger', sql: edited }),
      ]);
      expect(installed.sort()).toEqual([false, true]);
      await migrateToLatest(pg.db);
    } finally {
      await other.knex.destroy();
    }
  });
});

describe('SQLite: a database upgraded from the oldest schema equals a fresh one', () => {
  const shape = async (db: Database) => ({
    objects: await db.knex('sqlite_master').select('type', 'name', 'tbl_name', 'sql').orderBy(['type', 'name']),
    columns: await db.knex.raw(
      `SELECT m.name AS table_name, c.* FROM sqlite_master m, pragma_table_info(m.name) c
        WHERE m.type = 'table' ORDER BY m.name, c.cid`,
    ),
  });

  it('has the same tables, columns and indexes', async () => {
    const fresh = await sqliteMemory();
    const upgraded = connectDatabase('sqlite::memory:');
    try {
      const steps = await upgradeStepByStep(upgraded, async () => undefined);
      expect(steps[0]).toBe('0001-accounts-and-keys');
      const freshShape = await shape(fresh);
      expect(freshShape.objects.length).toBeGreaterThan(20);
      expect(await shape(upgraded)).toEqual(freshShape);
    } finally {
      await fresh.knex.destroy();
      await upgraded.knex.destroy();
    }
  });
});

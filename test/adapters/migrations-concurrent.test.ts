/**
 * Several gateway processes started at once on a fresh PostgreSQL database (a scale-out deployment's first start,
 * DESIGN.md 13) all migrate it: one runs the migrations, the others wait for it and find nothing left to do.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { TEST_POSTGRES_URL } from '../setup/databases.js';

const schema = `t_${process.pid}_${randomBytes(6).toString('hex')}`;
const opened: Database[] = [];

afterAll(async () => {
  await opened[0]?.knex.raw('drop schema if exists ?? cascade', [schema]);
  for (const db of opened) await db.knex.destroy();
});

describe('migrations started by several processes at once', () => {
  it('all succeed on a fresh database, and the schema is whole', async () => {
    const admin = connectDatabase(TEST_POSTGRES_URL);
    await admin.knex.raw('create schema ??', [schema]);
    await admin.knex.destroy();
    for (let i = 0; i < 3; i += 1) opened.push(connectDatabase(TEST_POSTGRES_URL, { searchPath: schema }));
    const results = await Promise.allSettled(opened.map((db) => migrateToLatest(db)));
    expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok', 'ok']);
    const done = await opened[0]!.knex('knex_migrations').count<{ count: string }[]>({ count: '*' });
    expect(Number(done[0]!.count)).toBeGreaterThanOrEqual(34);
    const names = await opened[0]!.knex('knex_migrations').pluck('name');
    expect(new Set(names).size).toBe(names.length);
  }, 120_000);
});

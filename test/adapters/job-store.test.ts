/**
 * The job-store conformance suite on memory, SQLite and the real PostgreSQL of this machine (never skipped),
 * plus one compare-and-set and one claim shared by separate PostgreSQL connections (several gateway processes
 * working on one job).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../src/adapters/job-store/index.js';
import { MemoryJobStore } from '../../src/adapters/job-store/memory.js';
import { SqlJobStore } from '../../src/adapters/job-store/sql.js';
import { connectDatabase, type Database } from '../../src/db/connect.js';
import { newId } from '../../src/lib/ids.js';
import { type PostgresSchema, postgresSchema, sqliteMemory, TEST_POSTGRES_URL } from '../setup/databases.js';
import { jobStoreConformance } from './job-store.conformance.js';

const T0 = 1_750_000_000_000;

function job(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    id: newId('job'),
    accountId: newId('acc'),
    kind: 'video',
    status: 'pending',
    createdAtMs: T0,
    updatedAtMs: T0,
    expiresAtMs: T0 + 7_200_000,
    data: {},
    ...overrides,
  };
}

jobStoreConformance('memory', async () => ({ store: new MemoryJobStore(), cleanup: async () => {} }));

jobStoreConformance('sqlite', async () => {
  const db = await sqliteMemory();
  return { store: new SqlJobStore(db), cleanup: () => db.knex.destroy() };
});

jobStoreConformance('postgres', async () => {
  const { db, drop } = await postgresSchema();
  return { store: new SqlJobStore(db), cleanup: drop };
});

describe('SqlJobStore on two PostgreSQL pools (two gateway processes)', () => {
  let schema: PostgresSchema;
  let other: Database;
  let stores: SqlJobStore[];

  beforeAll(async () => {
    schema = await postgresSchema();
    other = connectDatabase(TEST_POSTGRES_URL, { searchPath: schema.schema });
    stores = [new SqlJobStore(schema.db), new SqlJobStore(other)];
  });
  afterAll(async () => {
    await other.knex.destroy();
    await schema.drop();
  });

  it('lets exactly one of 60 transitions win', async () => {
    const record = job({ status: 'processing' });
    await stores[0]!.create(record);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        stores[i % 2]!.transition(record.id, ['processing'], { status: 'completed', data: { by: i } }, T0 + i),
      ),
    );
    expect(answers.filter((answer) => answer !== null)).toHaveLength(1);
  });

  it('lets exactly one of 40 claims on a record’s data win (a draft’s one final)', async () => {
    const record = job({ status: 'completed', kind: 'video_draft', data: { ready: true } });
    await stores[0]!.create(record);
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        stores[i % 2]!.transition(
          record.id,
          ['completed'],
          { data: { final_job_id: `job_${i}` }, expect: { final_job_id: null } },
          T0 + i,
        ),
      ),
    );
    expect(answers.filter((answer) => answer !== null)).toHaveLength(1);
  });

  it('hands each of 40 jobs to exactly one of two claimers claiming in parallel', async () => {
    const records = Array.from({ length: 40 }, () => job());
    for (const record of records) await stores[0]!.create(record);
    const rounds = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        stores[i % 2]!.claim({ owner: `w${i % 2}`, untilMs: T0 + 60_000 }, T0 + 1, 3),
      ),
    );
    const ids = rounds.flat().map((j) => j.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(records.map((r) => r.id).sort());
  });
});

import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import { assertValidJob, assertValidLease, assertValidTime, assertValidTransition, holdsExpected } from './checks.js';
import {
  type JobLease,
  type JobPatch,
  type JobRecord,
  type JobStatus,
  type JobStore,
  TERMINAL_STATUSES,
} from './index.js';

interface Row {
  id: string;
  lease_owner?: string | null;
  account_id: string;
  kind: string;
  status: string;
  created_at_ms: number | bigint;
  updated_at_ms: number | bigint;
  expires_at_ms: number | bigint;
  data: string;
  version: number | bigint;
}

const fromRow = (row: Row): JobRecord => ({
  id: row.id,
  accountId: row.account_id,
  kind: row.kind,
  status: row.status as JobStatus,
  createdAtMs: Number(row.created_at_ms),
  updatedAtMs: Number(row.updated_at_ms),
  expiresAtMs: Number(row.expires_at_ms),
  data: JSON.parse(row.data) as Record<string, unknown>,
});

const RECORD_COLUMNS = [
  'id',
  'account_id',
  'kind',
  'status',
  'created_at_ms',
  'updated_at_ms',
  'expires_at_ms',
  'data',
  'version',
  'lease_owner',
];

/**
 * The job-store port over knex, on SQLite and PostgreSQL alike (migration 0008). Every change is a
 * compare-and-set on the row's `version`, so two processes changing one job never both win, and the JSON payload
 * is merged in JavaScript (PostgreSQL's jsonb would refuse what JSON text keeps, such as a lone surrogate).
 */
export class SqlJobStore implements JobStore {
  private readonly knex: Knex;
  private readonly postgres: boolean;

  constructor(db: Database) {
    this.knex = db.knex;
    this.postgres = db.kind === 'postgres';
  }

  async create(job: JobRecord, lease?: JobLease): Promise<boolean> {
    assertValidJob(job);
    if (lease !== undefined) assertValidLease(lease);
    const inserted = await this.knex('jobs')
      .insert({
        id: job.id,
        account_id: job.accountId,
        kind: job.kind,
        status: job.status,
        created_at_ms: job.createdAtMs,
        updated_at_ms: job.updatedAtMs,
        expires_at_ms: job.expiresAtMs,
        data: JSON.stringify(job.data),
        version: 0,
        lease_owner: lease?.owner ?? null,
        lease_until_ms: lease?.untilMs ?? 0,
      })
      .onConflict('id')
      .ignore()
      .returning('id');
    return inserted.length === 1;
  }

  async get(id: string, nowMs: number): Promise<JobRecord | null> {
    assertValidTime('nowMs', nowMs);
    const row = await this.live(id, nowMs);
    return row === null ? null : fromRow(row);
  }

  async transition(
    id: string,
    from: readonly JobStatus[],
    patch: JobPatch,
    nowMs: number,
    owner?: string,
  ): Promise<JobRecord | null> {
    assertValidTransition(from, patch, nowMs);
    const patchData = JSON.parse(JSON.stringify(patch.data ?? {})) as Record<string, unknown>;
    for (;;) {
      const row = await this.live(id, nowMs);
      if (row === null || !from.includes(row.status as JobStatus) || (owner !== undefined && row.lease_owner !== owner))
        return null;
      const current = fromRow(row);
      // Judged on the version read: the write below misses if anyone changed the row since.
      if (!holdsExpected(current.data, patch.expect)) return null;
      const next: JobRecord = {
        ...current,
        status: patch.status ?? current.status,
        updatedAtMs: nowMs,
        data: { ...current.data, ...patchData },
      };
      // With `owner`, the lease is compared as well: a claim by another worker between the read and the write misses.
      const changed = await this.knex('jobs')
        .where({ id, version: row.version, ...(owner === undefined ? {} : { lease_owner: owner }) })
        .update({
          status: next.status,
          updated_at_ms: nowMs,
          data: JSON.stringify(next.data),
          version: Number(row.version) + 1,
        });
      if (changed === 1) return next;
      // Someone else changed the job between the read and the write: judge `from` again on what they left.
    }
  }

  async claim(lease: JobLease, nowMs: number, limit: number): Promise<JobRecord[]> {
    assertValidLease(lease);
    assertValidTime('nowMs', nowMs);
    const due = (query: Knex.QueryBuilder) =>
      query
        .whereNotIn('status', [...TERMINAL_STATUSES])
        .where('lease_until_ms', '<=', nowMs)
        .where('expires_at_ms', '>', nowMs);
    // PostgreSQL: rows another claimer is locking are skipped, not waited for; SQLite has one writer at a time.
    const candidates = due(this.knex('jobs').select('id')).orderBy('created_at_ms').limit(limit);
    if (this.postgres) candidates.forUpdate().skipLocked();
    const rows = (await due(this.knex('jobs').whereIn('id', candidates))
      .update({ lease_owner: lease.owner, lease_until_ms: lease.untilMs })
      .returning(RECORD_COLUMNS)) as Row[];
    return rows.map(fromRow).sort((a, b) => a.createdAtMs - b.createdAtMs);
  }

  async claimOne(id: string, lease: JobLease, nowMs: number): Promise<JobRecord | null> {
    assertValidLease(lease);
    const rows = (await this.knex('jobs')
      .where({ id })
      .whereNotIn('status', [...TERMINAL_STATUSES])
      .where('lease_until_ms', '<=', nowMs)
      .where('expires_at_ms', '>', nowMs)
      .update({ lease_owner: lease.owner, lease_until_ms: lease.untilMs })
      .returning(RECORD_COLUMNS)) as Row[];
    return rows[0] === undefined ? null : fromRow(rows[0]);
  }

  async renew(id: string, lease: JobLease, nowMs: number): Promise<boolean> {
    assertValidLease(lease);
    const changed = await this.knex('jobs')
      .where({ id, lease_owner: lease.owner })
      .whereNotIn('status', [...TERMINAL_STATUSES])
      .where('expires_at_ms', '>', nowMs)
      .update({ lease_until_ms: lease.untilMs });
    return changed === 1;
  }

  async release(id: string, owner: string): Promise<void> {
    await this.knex('jobs').where({ id, lease_owner: owner }).update({ lease_owner: null, lease_until_ms: 0 });
  }

  async expire(nowMs: number): Promise<number> {
    assertValidTime('nowMs', nowMs);
    return this.knex('jobs').where('expires_at_ms', '<=', nowMs).delete();
  }

  async close(): Promise<void> {
    // The database belongs to the caller.
  }

  private async live(id: string, nowMs: number): Promise<Row | null> {
    const row = (await this.knex('jobs')
      .select(RECORD_COLUMNS)
      .where({ id })
      .where('expires_at_ms', '>', nowMs)
      .first()) as Row | undefined;
    return row ?? null;
  }
}

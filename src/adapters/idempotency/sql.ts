import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import type { ClaimOutcome, IdempotencyRecord, IdempotencyState, IdempotencyStore } from './index.js';

interface Row {
  account_id: string;
  key: string;
  fingerprint: string;
  request_id: string;
  state: string;
  status_code: number | null;
  body: string | null;
  created_at_ms: number | bigint;
  expires_at_ms: number | bigint;
  locked_until_ms: number | bigint;
  creates: string | null;
}

const toRow = (r: IdempotencyRecord): Row => ({
  account_id: r.accountId,
  key: r.key,
  fingerprint: r.fingerprint,
  request_id: r.requestId,
  state: r.state,
  status_code: r.statusCode,
  body: r.body,
  created_at_ms: r.createdAtMs,
  expires_at_ms: r.expiresAtMs,
  locked_until_ms: r.lockedUntilMs,
  creates: r.creates,
});

const fromRow = (row: Row): IdempotencyRecord => ({
  accountId: row.account_id,
  key: row.key,
  fingerprint: row.fingerprint,
  requestId: row.request_id,
  state: row.state as IdempotencyState,
  statusCode: row.status_code === null ? null : Number(row.status_code),
  body: row.body,
  createdAtMs: Number(row.created_at_ms),
  expiresAtMs: Number(row.expires_at_ms),
  lockedUntilMs: Number(row.locked_until_ms),
  creates: row.creates,
});

const COLUMNS = [
  'fingerprint',
  'request_id',
  'state',
  'status_code',
  'body',
  'created_at_ms',
  'expires_at_ms',
  'locked_until_ms',
  'creates',
];

/** The idempotency-key port over knex, on SQLite and PostgreSQL alike (migrations 0006, 0022). */
export class SqlIdempotencyStore implements IdempotencyStore {
  private readonly knex: Knex;

  constructor(db: Database) {
    this.knex = db.knex;
  }

  /** One statement: insert, or replace a record that has expired; a live record is left alone and read back. */
  async claim(record: IdempotencyRecord, nowMs: number): Promise<ClaimOutcome> {
    const replaced = Object.fromEntries(COLUMNS.map((c) => [c, this.knex.raw('??', [`excluded.${c}`])]));
    const stored = (await this.knex('idempotency_keys')
      .insert(toRow(record))
      .onConflict(['account_id', 'key'])
      .merge(replaced)
      .where('idempotency_keys.expires_at_ms', '<=', nowMs)
      .returning('request_id')) as { request_id: string }[];
    if (stored[0]?.request_id === record.requestId) return { claimed: true };
    const existing = (await this.knex('idempotency_keys')
      .where({ account_id: record.accountId, key: record.key })
      .first()) as Row | undefined;
    // Gone between the two statements (expired and swept): claim again.
    return existing === undefined ? this.claim(record, nowMs) : { claimed: false, existing: fromRow(existing) };
  }

  async complete(
    accountId: string,
    key: string,
    requestId: string,
    outcome: Parameters<IdempotencyStore['complete']>[3],
  ): Promise<void> {
    const values =
      outcome.state === 'completed'
        ? { state: 'completed', status_code: outcome.statusCode, body: outcome.body }
        : { state: 'streamed' };
    await this.knex('idempotency_keys').where({ account_id: accountId, key, request_id: requestId }).update(values);
  }

  async release(accountId: string, key: string, requestId: string): Promise<void> {
    await this.knex('idempotency_keys').where({ account_id: accountId, key, request_id: requestId }).delete();
  }

  async takeOver(record: IdempotencyRecord, fromRequestId: string): Promise<boolean> {
    const { account_id, key, ...values } = toRow(record);
    const changed = await this.knex('idempotency_keys')
      .where({ account_id, key, request_id: fromRequestId, state: 'in_flight' })
      .update(values);
    return changed === 1;
  }

  async expire(nowMs: number): Promise<number> {
    return this.knex('idempotency_keys').where('expires_at_ms', '<=', nowMs).delete();
  }
}

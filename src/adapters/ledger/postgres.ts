import { createRequire } from 'node:module';
import type { Knex } from 'knex';
import type pg from 'pg';
import type { Database } from '../../db/connect.js';
import type { UsageRecord } from '../usage-log/index.js';
import { BatchingLedger, type BatchingOptions, type LedgerEngine, type OpResult } from './batching-ledger.js';
import { type Entry, storedUsage, toHold, toTransfer } from './entries.js';
import type { Balance, Lot, Micros } from './index.js';
import type { LedgerOp, OpOutcome } from './operations.js';
import {
  type AllocationRow,
  type EntryRow,
  LOT_COLUMNS,
  type LotRow,
  micros,
  toAllocation,
  toEntry,
  toLot,
} from './sql-rows.js';

/** What `ledger_apply` answers per operation (migration 0005): the operations.ts outcome, as JSON. */
interface Answer {
  ok: boolean;
  reason?: string;
  status?: string;
  availableMicros?: number;
  replayed?: boolean;
  entry?: EntryRow & { allocations: AllocationRow[] };
  lossMicros?: number;
  usage?: { costMicros: number; costRubMicro: number | null; fxRateRubMicro: number | null } | null;
  /** A caller bug only the function could see (a capture's payee naming the hold's account): nothing was written. */
  rangeError?: string;
}

const APPLY = { name: 'ledger_apply', text: 'SELECT ledger_apply($1::jsonb) AS results' };
const EXPIRE = { name: 'ledger_expire', text: 'SELECT ledger_expire($1, $2) AS count' };

/** The part of knex's pg client that lends out its pooled connections (typed `any` by knex). */
interface PgPool {
  acquireConnection(): Promise<pg.Client>;
  releaseConnection(connection: unknown): Promise<void>;
}

/**
 * `query`, calling `handedOff` once its bytes are in the connection's socket (README.md "Handed off"): pg writes a
 * submitted query at once (its messages corked, then uncorked), so that is when `submit` returns with nothing left in
 * the stream's buffer, or else at the stream's next 'drain'.
 */
function withHandOff(query: pg.Query, handedOff: () => void): pg.Query {
  const submit = query.submit.bind(query);
  query.submit = (connection) => {
    const error: unknown = submit(connection); // pg's submit answers an Error or null (typed void)
    if (!error) {
      if (connection.stream.writableLength === 0) handedOff();
      else connection.stream.once('drain', handedOff);
    }
    return error as undefined;
  };
  return query;
}

/** A batch lost to a deadlock or a serialization failure was rolled back whole: it is simply run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const ATTEMPTS = 3;

/** An operation as JSON (with `bigintAsText`): a usage line's metadata as the text it is stored as. */
function toWire(op: LedgerOp): unknown {
  return 'usage' in op && op.usage !== null
    ? { ...op, usage: { ...op.usage, metadata: JSON.stringify(op.usage.metadata) } }
    : op;
}

/** Amounts as decimal strings: exact, where a JSON number would round above 2^53. */
const bigintAsText = (_key: string, value: unknown): unknown => (typeof value === 'bigint' ? value.toString() : value);

const entryOf = (json: NonNullable<Answer['entry']>): Entry => toEntry(json, json.allocations.map(toAllocation));

/** The usage line as stored: the one sent, completed with what the function posted. */
function usageOf(op: LedgerOp, entry: Entry, answer: Answer): UsageRecord | null {
  if (!('usage' in op) || op.usage === null || !answer.usage) return null;
  const { costMicros, costRubMicro, fxRateRubMicro } = answer.usage;
  const nullable = (v: number | null) => (v === null ? null : micros(v));
  return storedUsage(op.usage, {
    accountId: entry.accountId,
    transferId: entry.id,
    costMicros: micros(costMicros),
    costRubMicro: nullable(costRubMicro),
    fxRateRubMicro: nullable(fxRateRubMicro),
  });
}

/** The JSON answer as the typed outcome the TypeScript engines give for the same operation. */
function toOutcome(op: LedgerOp, answer: Answer): OpOutcome {
  if (!answer.ok) {
    if (answer.reason === 'insufficient_balance')
      return { ok: false, reason: 'insufficient_balance', availableMicros: micros(answer.availableMicros ?? 0) };
    if (answer.reason === 'hold_not_pending')
      return { ok: false, reason: 'hold_not_pending', status: answer.status as Entry['status'] };
    return { ok: false, reason: answer.reason } as OpOutcome;
  }
  const entry = entryOf(answer.entry!);
  const replayed = answer.replayed ?? false;
  const posting = { lossMicros: micros(answer.lossMicros ?? 0), usage: usageOf(op, entry, answer) };
  switch (op.op) {
    case 'hold':
    case 'release':
      return { ok: true, hold: toHold(entry), replayed };
    case 'extend':
      return { ok: true, hold: toHold(entry) };
    case 'settle':
      return { ok: true, hold: toHold(entry), replayed, ...posting };
    default:
      return { ok: true, transfer: toTransfer(entry as Entry & { kind: 'debit' }), replayed, ...posting };
  }
}

/**
 * The scale-out engine: a batch is one call of the plpgsql function `ledger_apply` (migration 0005), so one round
 * trip and one transaction however many operations it carries. Reads are plain queries.
 */
class PostgresEngine implements LedgerEngine {
  readonly firstWrite = 'at-once';
  private readonly knex: Knex;
  /** The driver's query class, from the module knex loaded (the embedded default never loads pg). */
  private readonly Query: typeof pg.Query;

  constructor(db: Database) {
    if (db.kind !== 'postgres') throw new Error(`the PostgreSQL ledger needs a PostgreSQL database (got ${db.kind})`);
    this.knex = db.knex;
    this.Query = (createRequire(import.meta.url)('pg') as typeof pg).Query;
  }

  async apply(ops: readonly LedgerOp[], handedOff: () => void): Promise<OpResult[]> {
    const payload = JSON.stringify(ops.map(toWire), bigintAsText);
    const rows = await this.retrying(() => this.query<{ results: Answer[] }>(APPLY, [payload], handedOff));
    const answers = rows[0]!.results;
    if (answers.length !== ops.length)
      throw new Error(`ledger: ${ops.length} operations but ${answers.length} answers`);
    // A caller bug fails its operation alone, as the TypeScript engines' RangeError does (operations.ts).
    return ops.map((op, i): OpResult => {
      const answer = answers[i]!;
      return answer.rangeError === undefined
        ? { ok: true, outcome: toOutcome(op, answer) }
        : { ok: false, error: new RangeError(answer.rangeError) };
    });
  }

  async expire(nowMs: number, limit: number): Promise<number> {
    const rows = await this.retrying(() => this.query<{ count: number }>(EXPIRE, [nowMs, limit]));
    return Number(rows[0]!.count);
  }

  async entry(id: string): Promise<Entry | null> {
    const row = (await this.knex('ledger_transfers').select('*').where('id', id).first()) as EntryRow | undefined;
    if (!row) return null;
    const allocations =
      row.status === 'posted'
        ? ((await this.knex('ledger_allocations')
            .select('lot_id', 'amount_micros', 'fx_rate_rub_micro')
            .where('transfer_id', id)
            .orderBy('seq')) as AllocationRow[])
        : [];
    return toEntry(row, allocations.map(toAllocation));
  }

  async balance(accountId: string): Promise<Balance> {
    const row = (await this.knex('ledger_balances')
      .select('available_micros', 'held_micros')
      .where('account_id', accountId)
      .first()) as { available_micros: bigint; held_micros: bigint } | undefined;
    return {
      accountId,
      availableMicros: row ? micros(row.available_micros) : 0n,
      heldMicros: row ? micros(row.held_micros) : 0n,
    };
  }

  async listLots(accountId: string): Promise<Lot[]> {
    const rows = (await this.knex('ledger_lots')
      .select(LOT_COLUMNS)
      .where('account_id', accountId)
      .andWhereRaw('remaining_micros > 0') // a literal, so the partial spending-order index applies
      .orderBy([{ column: 'created_at_ms' }, { column: 'seq' }])) as LotRow[];
    return rows.map(toLot);
  }

  async postedSpend(accountId: string, range: { fromMs?: number; toMs?: number }): Promise<Micros> {
    const query = this.knex('ledger_transfers').where('account_id', accountId).whereNotNull('posted_at_ms');
    if (range.fromMs !== undefined) void query.andWhere('posted_at_ms', '>=', range.fromMs);
    if (range.toMs !== undefined) void query.andWhere('posted_at_ms', '<', range.toMs);
    const row = (await query.select(this.knex.raw('COALESCE(SUM(spend_micros), 0) AS total')).first()) as {
      total: bigint | string;
    };
    return micros(row.total);
  }

  async sumOfAllBalances(): Promise<Micros> {
    const row = (await this.knex('ledger_balances')
      .select(this.knex.raw('COALESCE(SUM(available_micros + held_micros), 0) AS total'))
      .first()) as {
      total: bigint | string;
    };
    return micros(row.total);
  }

  /**
   * A named (so, per connection, prepared once) statement on knex's pooled connection, through the driver itself:
   * the batch is the hot path, and knex's query building costs about as much as PostgreSQL's planning of it.
   */
  private async query<R>(
    statement: { name: string; text: string },
    values: unknown[],
    handedOff?: () => void,
  ): Promise<R[]> {
    const client = this.knex.client as PgPool;
    const connection = await client.acquireConnection();
    try {
      if (handedOff === undefined)
        return (await connection.query<R & pg.QueryResultRow>({ ...statement, values })).rows;
      return await new Promise<R[]>((resolve, reject) => {
        const query = new this.Query<R & pg.QueryResultRow>({ ...statement, values }, (err, result) =>
          err ? reject(err) : resolve(result.rows),
        );
        connection.query(withHandOff(query, handedOff));
      });
    } finally {
      await client.releaseConnection(connection);
    }
  }

  private async retrying<T>(call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (err) {
        if (attempt >= ATTEMPTS || !RETRYABLE.has((err as { code?: string }).code ?? '')) throw err;
      }
    }
  }
}

/** The scale-out ledger on PostgreSQL (README.md). */
export function postgresLedger(db: Database, options?: BatchingOptions): BatchingLedger {
  return new BatchingLedger(new PostgresEngine(db), options);
}

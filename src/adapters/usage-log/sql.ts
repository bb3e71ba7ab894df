import type { Knex } from 'knex';
import type { Database } from '../../db/connect.js';
import { DAY_MS, utcDay } from '../../lib/utc-days.js';
import type {
  DailyUsage,
  KeyTotals,
  UsageFilter,
  UsageKind,
  UsageLogStore,
  UsageRecord,
  UsageTotals,
} from './index.js';
import type { DailyIncrement } from './totals.js';

/** Integer columns arrive as number (SQLite) or BigInt (pg int8, see connect.ts); sums cast to text arrive as string. */
type Int = number | bigint | string;

interface RecordRow {
  id: string;
  account_id: string;
  key_id: string;
  request_id: string;
  model: string;
  kind: string;
  endpoint: string;
  prompt_tokens: Int;
  completion_tokens: Int;
  cached_tokens: Int;
  reasoning_tokens: Int;
  total_tokens: Int;
  cost_micros: Int;
  transfer_id: string | null;
  billed_in_rub: boolean | number;
  cost_rub_micro: Int | null;
  fx_rate_rub_micro: Int | null;
  created_at_ms: Int;
  duration_ms: Int;
  metadata: string;
}

interface TotalsRow {
  requests: Int;
  prompt_tokens: Int;
  completion_tokens: Int;
  total_tokens: Int;
  cost_micros: Int;
  billed_rub_micro: Int;
  unbilled_cost_micros: Int;
}

interface DailyRow extends TotalsRow {
  day: string;
  model: string;
  kind: string;
}

const RECORD_COLUMNS = [
  'id',
  'account_id',
  'key_id',
  'request_id',
  'model',
  'kind',
  'endpoint',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_micros',
  'transfer_id',
  'billed_in_rub',
  'cost_rub_micro',
  'fx_rate_rub_micro',
  'created_at_ms',
  'duration_ms',
  'metadata',
];

/**
 * Money sums are cast to text in SQL: SQLite sums int8 exactly but better-sqlite3 would hand back a float-backed
 * number above 2^53, and pg returns numeric (the type of sum(int8)) as a string anyway. Single-record amounts
 * are read as plain columns: they stay far below 2^53 micro-units.
 */
const SUM_SQL: Record<keyof TotalsRow, string> = {
  requests: 'count(*)',
  prompt_tokens: 'coalesce(sum(prompt_tokens), 0)',
  completion_tokens: 'coalesce(sum(completion_tokens), 0)',
  total_tokens: 'coalesce(sum(total_tokens), 0)',
  cost_micros: 'cast(coalesce(sum(cost_micros), 0) as text)',
  // index.ts: Σ cost_rub of ruble-billed records; Σ cost_usd of the others.
  billed_rub_micro:
    'cast(coalesce(sum(case when billed_in_rub then coalesce(cost_rub_micro, 0) else 0 end), 0) as text)',
  unbilled_cost_micros: 'cast(coalesce(sum(case when billed_in_rub then 0 else cost_micros end), 0) as text)',
};

/** The same totals summed over roll-up rows (money cast to text for the same reason). */
const ROLLUP_SUM_SQL: Record<keyof TotalsRow, string> = {
  requests: 'coalesce(sum(requests), 0)',
  prompt_tokens: 'coalesce(sum(prompt_tokens), 0)',
  completion_tokens: 'coalesce(sum(completion_tokens), 0)',
  total_tokens: 'coalesce(sum(total_tokens), 0)',
  cost_micros: 'cast(coalesce(sum(cost_micros), 0) as text)',
  billed_rub_micro: 'cast(coalesce(sum(billed_rub_micro), 0) as text)',
  unbilled_cost_micros: 'cast(coalesce(sum(unbilled_cost_micros), 0) as text)',
};

/** JavaScript dates end here; beyond it there is no day to name, so such bounds go to the records. */
const MAX_DATE_MS = 8.64e15;
/** Unset, or a UTC midnight: a bound the daily roll-ups can answer exactly. */
const dayAligned = (ms: number | undefined): boolean =>
  ms === undefined || (ms % DAY_MS === 0 && Math.abs(ms) <= MAX_DATE_MS);

const nullableBig = (v: Int | null): bigint | null => (v === null ? null : BigInt(v));

/** A record as its `usage_records` row (the ledger's SQLite engine inserts it; migration 0003). */
export function usageRow(r: UsageRecord): Record<string, unknown> {
  return {
    id: r.id,
    account_id: r.accountId,
    key_id: r.keyId,
    request_id: r.requestId,
    model: r.model,
    kind: r.kind,
    endpoint: r.endpoint,
    prompt_tokens: r.promptTokens,
    completion_tokens: r.completionTokens,
    cached_tokens: r.cachedTokens,
    reasoning_tokens: r.reasoningTokens,
    total_tokens: r.totalTokens,
    cost_micros: r.costMicros,
    transfer_id: r.transferId,
    billed_in_rub: r.billedInRub,
    cost_rub_micro: r.costRubMicro,
    fx_rate_rub_micro: r.fxRateRubMicro,
    created_at_ms: r.createdAtMs,
    duration_ms: r.durationMs,
    metadata: JSON.stringify(r.metadata),
  };
}

function fromRow(row: RecordRow): UsageRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    keyId: row.key_id,
    requestId: row.request_id,
    model: row.model,
    kind: row.kind as UsageKind,
    endpoint: row.endpoint,
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    cachedTokens: Number(row.cached_tokens),
    reasoningTokens: Number(row.reasoning_tokens),
    totalTokens: Number(row.total_tokens),
    costMicros: BigInt(row.cost_micros),
    transferId: row.transfer_id,
    // SQLite stores booleans as 0/1.
    billedInRub: row.billed_in_rub === true || row.billed_in_rub === 1,
    costRubMicro: nullableBig(row.cost_rub_micro),
    fxRateRubMicro: nullableBig(row.fx_rate_rub_micro),
    createdAtMs: Number(row.created_at_ms),
    durationMs: Number(row.duration_ms),
    metadata: JSON.parse(row.metadata) as Record<string, unknown>,
  };
}

function toTotals(row: TotalsRow): UsageTotals {
  return {
    requests: Number(row.requests),
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    totalTokens: Number(row.total_tokens),
    costMicros: BigInt(row.cost_micros),
    billedRubMicro: BigInt(row.billed_rub_micro),
    unbilledCostMicros: BigInt(row.unbilled_cost_micros),
  };
}

/** A roll-up increment as its `usage_daily` row. */
export function rollupRow(inc: DailyIncrement): Record<string, unknown> {
  return {
    account_id: inc.accountId,
    day: inc.day,
    model: inc.model,
    kind: inc.kind,
    requests: inc.requests,
    prompt_tokens: inc.promptTokens,
    completion_tokens: inc.completionTokens,
    cached_tokens: inc.cachedTokens,
    reasoning_tokens: inc.reasoningTokens,
    total_tokens: inc.totalTokens,
    cost_micros: inc.costMicros,
    billed_rub_micro: inc.billedRubMicro,
    unbilled_cost_micros: inc.unbilledCostMicros,
  };
}

/**
 * The usage-log port over knex, on SQLite and PostgreSQL alike (schema: migration 0003). The caller owns the
 * `Database`. The ledger writes the records and their daily roll-ups, in the transaction of each charge.
 */
export class SqlUsageLogStore implements UsageLogStore {
  private readonly knex: Knex;
  /** ORDER BY text in byte order on both databases, as the memory twin does (PostgreSQL would use the locale). */
  private readonly bytewise: (column: string) => Knex.Raw;

  constructor(db: Database) {
    this.knex = db.knex;
    this.bytewise =
      db.kind === 'postgres' ? (c) => this.knex.raw('?? collate "C"', [c]) : (c) => this.knex.raw('??', [c]);
  }

  async list(accountId: string, filter: UsageFilter, page: { limit: number; offset: number }): Promise<UsageRecord[]> {
    const rows = (await this.filtered(accountId, filter)
      .select(RECORD_COLUMNS)
      .orderBy('created_at_ms', 'desc')
      .orderBy(this.bytewise('id'), 'desc')
      .limit(page.limit)
      .offset(page.offset)) as RecordRow[];
    return rows.map(fromRow);
  }

  async get(accountId: string, id: string): Promise<UsageRecord | null> {
    const row = (await this.knex('usage_records')
      .select(RECORD_COLUMNS)
      .where({ id, account_id: accountId })
      .first()) as RecordRow | undefined;
    return row ? fromRow(row) : null;
  }

  /**
   * Unbounded or whole-UTC-day ranges are summed from the roll-ups (the history page asks for all-time totals
   * on every view; DESIGN 8), any other range from the records. Both are exact: the roll-ups are written in the
   * same transaction as the records, and the table is append-only. The roll-ups know no key: one key's totals
   * come from the records.
   */
  async totals(accountId: string, filter: UsageFilter): Promise<UsageTotals> {
    const query =
      filter.keyId === undefined && dayAligned(filter.fromMs) && dayAligned(filter.toMs)
        ? this.rollupTotals(accountId, filter)
        : this.recordTotals(accountId, filter);
    const rows = (await query) as TotalsRow[];
    if (!rows[0]) throw new Error('aggregate query returned no row');
    return toTotals(rows[0]);
  }

  async totalsByKey(accountId: string, filter: UsageFilter): Promise<KeyTotals[]> {
    const rows = (await this.recordTotals(accountId, filter)
      .select('key_id')
      .groupBy('key_id')
      .orderBy(this.bytewise('key_id'))) as (TotalsRow & { key_id: string })[];
    return rows.map((row) => ({ keyId: row.key_id, ...toTotals(row) }));
  }

  async daily(accountId: string, range: { fromDay: string; toDay: string }): Promise<DailyUsage[]> {
    const sums = ['requests', 'prompt_tokens', 'completion_tokens', 'total_tokens'];
    const money = ['cost_micros', 'billed_rub_micro', 'unbilled_cost_micros'].map((c) =>
      this.knex.raw('cast(?? as text) as ??', [c, c]),
    );
    const rows = (await this.knex('usage_daily')
      .select(['day', 'model', 'kind', ...sums, ...money])
      .where('account_id', accountId)
      .andWhere('day', '>=', range.fromDay)
      .andWhere('day', '<=', range.toDay)
      .orderBy('day')
      .orderBy(this.bytewise('model'))
      .orderBy(this.bytewise('kind'))) as DailyRow[];
    return rows.map((row) => ({ day: row.day, model: row.model, kind: row.kind as UsageKind, ...toTotals(row) }));
  }

  private recordTotals(accountId: string, filter: UsageFilter): Knex.QueryBuilder {
    return this.filtered(accountId, filter).select(
      Object.entries(SUM_SQL).map(([alias, sql]) => this.knex.raw(`${sql} as ??`, [alias])),
    );
  }

  private rollupTotals(accountId: string, filter: UsageFilter): Knex.QueryBuilder {
    const q = this.knex('usage_daily')
      .select(Object.entries(ROLLUP_SUM_SQL).map(([alias, sql]) => this.knex.raw(`${sql} as ??`, [alias])))
      .where('account_id', accountId);
    if (filter.model !== undefined) q.andWhere('model', filter.model);
    if (filter.fromMs !== undefined) q.andWhere('day', '>=', utcDay(filter.fromMs));
    if (filter.toMs !== undefined) q.andWhere('day', '<', utcDay(filter.toMs)); // toMs is a midnight, exclusive
    return q;
  }

  /** One account's records, narrowed so the (account_id, created_at_ms) index does the work. */
  private filtered(accountId: string, filter: UsageFilter): Knex.QueryBuilder {
    const q = this.knex('usage_records').where('account_id', accountId);
    if (filter.model !== undefined) q.andWhere('model', filter.model);
    if (filter.keyId !== undefined) q.andWhere('key_id', filter.keyId);
    if (filter.fromMs !== undefined) q.andWhere('created_at_ms', '>=', filter.fromMs);
    if (filter.toMs !== undefined) q.andWhere('created_at_ms', '<', filter.toMs);
    return q;
  }
}

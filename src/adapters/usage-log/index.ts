/**
 * The usage-log port (SPEC 2.6, 4.3; DESIGN.md 8): append-only records of every billed call, plus daily roll-ups
 * so aggregates never scan records. Records are written by the ledger, in the transaction of the charge they
 * record (src/adapters/ledger/README.md "Usage lines"); this port reads them.
 */

export type UsageKind = 'chat' | 'embedding' | 'rerank' | 'image' | 'video' | 'music' | 'audio' | 'restoration';

export interface UsageRecord {
  /** `log_…`. */
  id: string;
  accountId: string;
  keyId: string;
  requestId: string;
  model: string;
  kind: UsageKind;
  endpoint: string;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  totalTokens: number;
  /** What the ledger posted for this call, micro-USD. */
  costMicros: bigint;
  /** The ledger hold or transfer that carried the charge. */
  transferId: string | null;
  /** True when the account was billed in rubles at the time: then costRubMicro is exact, from the lots that paid. */
  billedInRub: boolean;
  /** Micro-RUB; null unless billedInRub. */
  costRubMicro: bigint | null;
  /** RUB per USD × 1e6 effectively applied (cost_rub / cost_usd); null unless billedInRub. */
  fxRateRubMicro: bigint | null;
  createdAtMs: number;
  durationMs: number;
  metadata: Record<string, unknown>;
}

export interface UsageFilter {
  model?: string;
  /** One key's records only (issue 26 item 6); totals then come from the records, not the daily roll-ups. */
  keyId?: string;
  /** Inclusive lower bound, exclusive upper bound, both ms since the epoch. */
  fromMs?: number;
  toMs?: number;
}

export interface UsageTotals {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  costMicros: bigint;
  /** Σ costRubMicro of ruble-billed records. */
  billedRubMicro: bigint;
  /** Σ costMicros of records not billed in rubles (priced at today's market rate when shown in rubles). */
  unbilledCostMicros: bigint;
}

/** One key's totals. */
export interface KeyTotals extends UsageTotals {
  keyId: string;
}

/** One roll-up row: a UTC day, one model and kind. */
export interface DailyUsage extends UsageTotals {
  day: string; // YYYY-MM-DD, UTC
  model: string;
  kind: UsageKind;
}

export interface UsageLogStore {
  /** Newest first. */
  list(accountId: string, filter: UsageFilter, page: { limit: number; offset: number }): Promise<UsageRecord[]>;
  get(accountId: string, id: string): Promise<UsageRecord | null>;
  totals(accountId: string, filter: UsageFilter): Promise<UsageTotals>;
  /** Totals per key over the filter, from the records, ordered by key id (issue 26 item 6); keys with none absent. */
  totalsByKey(accountId: string, filter: UsageFilter): Promise<KeyTotals[]>;
  /** Roll-ups for days in [fromDay, toDay] (inclusive, YYYY-MM-DD), ordered by day then model. */
  daily(accountId: string, range: { fromDay: string; toDay: string }): Promise<DailyUsage[]>;
}

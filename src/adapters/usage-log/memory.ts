import type {
  DailyUsage,
  KeyTotals,
  UsageFilter,
  UsageKind,
  UsageLogStore,
  UsageRecord,
  UsageTotals,
} from './index.js';
import { addTotals, compareText, contribution, type DailyIncrement, NO_USAGE, rollUp } from './totals.js';

/** Newest first, ties by id descending: the order of `list` in both twins. */
export function newestFirst(a: UsageRecord, b: UsageRecord): number {
  return b.createdAtMs - a.createdAtMs || compareText(b.id, a.id);
}

export function matches(r: UsageRecord, filter: UsageFilter): boolean {
  if (filter.model !== undefined && r.model !== filter.model) return false;
  if (filter.keyId !== undefined && r.keyId !== filter.keyId) return false;
  if (filter.fromMs !== undefined && r.createdAtMs < filter.fromMs) return false;
  if (filter.toMs !== undefined && r.createdAtMs >= filter.toMs) return false;
  return true;
}

/** Stored with metadata as JSON text, like the SQL column, so both twins round-trip the same values. */
interface StoredRecord {
  record: Omit<UsageRecord, 'metadata'>;
  metadataJson: string;
}

const store = (r: UsageRecord): StoredRecord => {
  const { metadata, ...rest } = r;
  return { record: { ...rest }, metadataJson: JSON.stringify(metadata) };
};
const load = (s: StoredRecord): UsageRecord => ({
  ...s.record,
  metadata: JSON.parse(s.metadataJson) as Record<string, unknown>,
});

const dailyKey = (accountId: string, day: string, model: string, kind: UsageKind) =>
  JSON.stringify([accountId, day, model, kind]);

/**
 * In-process twin of the SQL store for tests and single-process demos; records are copied in and out. The memory
 * ledger writes into it synchronously: each record inside its operation, the roll-ups at the end of the batch
 * (as the SQL engines do in their transaction).
 */
export class MemoryUsageLogStore implements UsageLogStore {
  private readonly byId = new Map<string, StoredRecord>();
  private readonly byAccount = new Map<string, StoredRecord[]>();
  private readonly rollups = new Map<string, DailyIncrement>();

  /** Records and their roll-ups, as the ledger writes them (test fixtures use this). */
  append(records: readonly UsageRecord[]): void {
    for (const r of records) this.insert(r);
    this.addDaily(rollUp(records));
  }

  insert(r: UsageRecord): void {
    if (this.byId.has(r.id)) throw new Error(`usage log: record ${r.id} exists`); // as the SQL primary key
    const stored = store(r);
    this.byId.set(r.id, stored);
    const list = this.byAccount.get(r.accountId) ?? [];
    list.push(stored);
    this.byAccount.set(r.accountId, list);
  }

  addDaily(increments: readonly DailyIncrement[]): void {
    for (const inc of increments) {
      const key = dailyKey(inc.accountId, inc.day, inc.model, inc.kind);
      const row = this.rollups.get(key);
      if (!row) {
        this.rollups.set(key, { ...inc });
        continue;
      }
      Object.assign(row, addTotals(row, inc));
      row.cachedTokens += inc.cachedTokens;
      row.reasoningTokens += inc.reasoningTokens;
    }
  }

  async list(accountId: string, filter: UsageFilter, page: { limit: number; offset: number }): Promise<UsageRecord[]> {
    return this.records(accountId, filter)
      .sort(newestFirst)
      .slice(page.offset, page.offset + page.limit);
  }

  async get(accountId: string, id: string): Promise<UsageRecord | null> {
    const stored = this.byId.get(id);
    return stored && stored.record.accountId === accountId ? load(stored) : null;
  }

  async totals(accountId: string, filter: UsageFilter): Promise<UsageTotals> {
    return this.totalsNow(accountId, filter);
  }

  /** `totals` without a turn of the event loop, for a twin that decides and writes in one (key-budget/memory.ts). */
  totalsNow(accountId: string, filter: UsageFilter): UsageTotals {
    return this.records(accountId, filter).reduce((totals, r) => addTotals(totals, contribution(r)), NO_USAGE);
  }

  async totalsByKey(accountId: string, filter: UsageFilter): Promise<KeyTotals[]> {
    const byKey = new Map<string, UsageTotals>();
    for (const r of this.records(accountId, filter))
      byKey.set(r.keyId, addTotals(byKey.get(r.keyId) ?? NO_USAGE, contribution(r)));
    return [...byKey].sort(([a], [b]) => compareText(a, b)).map(([keyId, totals]) => ({ keyId, ...totals }));
  }

  async daily(accountId: string, range: { fromDay: string; toDay: string }): Promise<DailyUsage[]> {
    return [...this.rollups.values()]
      .filter((row) => row.accountId === accountId && row.day >= range.fromDay && row.day <= range.toDay)
      .sort((a, b) => compareText(a.day, b.day) || compareText(a.model, b.model) || compareText(a.kind, b.kind))
      .map(({ accountId: _a, cachedTokens: _c, reasoningTokens: _r, ...row }) => ({ ...row }));
  }

  private records(accountId: string, filter: UsageFilter): UsageRecord[] {
    return (this.byAccount.get(accountId) ?? []).map(load).filter((r) => matches(r, filter));
  }
}

import type {
  DailyUsage,
  KeyTotals,
  UsageFilter,
  UsageLogStore,
  UsageRecord,
  UsageTotals,
} from '../../adapters/usage-log/index.js';
import { orUnavailable } from '../../errors/api-error.js';

/**
 * Reads of the usage log for the usage endpoints. Usage lines are committed with their charges, and a read waits
 * for the account's charges in flight, so a caller reads its own calls at once; an unreachable store is a
 * retryable 503, not a 500.
 */
export class UsageReader {
  constructor(
    private readonly store: UsageLogStore,
    private readonly settled: (accountId: string) => Promise<void>,
  ) {}

  list(accountId: string, filter: UsageFilter, page: { limit: number; offset: number }): Promise<UsageRecord[]> {
    return this.read(accountId, () => this.store.list(accountId, filter, page));
  }

  get(accountId: string, id: string): Promise<UsageRecord | null> {
    return this.read(accountId, () => this.store.get(accountId, id));
  }

  totals(accountId: string, filter: UsageFilter): Promise<UsageTotals> {
    return this.read(accountId, () => this.store.totals(accountId, filter));
  }

  totalsByKey(accountId: string, filter: UsageFilter): Promise<KeyTotals[]> {
    return this.read(accountId, () => this.store.totalsByKey(accountId, filter));
  }

  daily(accountId: string, range: { fromDay: string; toDay: string }): Promise<DailyUsage[]> {
    return this.read(accountId, () => this.store.daily(accountId, range));
  }

  private async read<T>(accountId: string, operation: () => Promise<T>): Promise<T> {
    await this.settled(accountId);
    return orUnavailable(operation, 'usage log');
  }
}

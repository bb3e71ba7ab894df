import type { ClaimOutcome, IdempotencyRecord, IdempotencyStore } from './index.js';

const id = (accountId: string, key: string) => `${accountId}\u0000${key}`;

/** In-process twin of the SQL store (tests, single-process demos); records are copied in and out. */
export class MemoryIdempotencyStore implements IdempotencyStore {
  private readonly records = new Map<string, IdempotencyRecord>();

  async claim(record: IdempotencyRecord, nowMs: number): Promise<ClaimOutcome> {
    const existing = this.records.get(id(record.accountId, record.key));
    if (existing !== undefined && existing.expiresAtMs > nowMs) return { claimed: false, existing: { ...existing } };
    this.records.set(id(record.accountId, record.key), { ...record });
    return { claimed: true };
  }

  async complete(
    accountId: string,
    key: string,
    requestId: string,
    outcome: Parameters<IdempotencyStore['complete']>[3],
  ): Promise<void> {
    const record = this.owned(accountId, key, requestId);
    if (record === undefined) return;
    if (outcome.state === 'completed')
      Object.assign(record, { state: 'completed', statusCode: outcome.statusCode, body: outcome.body });
    else record.state = 'streamed';
  }

  async release(accountId: string, key: string, requestId: string): Promise<void> {
    if (this.owned(accountId, key, requestId) !== undefined) this.records.delete(id(accountId, key));
  }

  async takeOver(record: IdempotencyRecord, fromRequestId: string): Promise<boolean> {
    const current = this.owned(record.accountId, record.key, fromRequestId);
    if (current === undefined || current.state !== 'in_flight') return false;
    this.records.set(id(record.accountId, record.key), { ...record });
    return true;
  }

  async expire(nowMs: number): Promise<number> {
    let count = 0;
    for (const [name, record] of this.records) {
      if (record.expiresAtMs > nowMs) continue;
      this.records.delete(name);
      count++;
    }
    return count;
  }

  private owned(accountId: string, key: string, requestId: string): IdempotencyRecord | undefined {
    const record = this.records.get(id(accountId, key));
    return record?.requestId === requestId ? record : undefined;
  }
}

/**
 * The key-budget port (issue 26 item 6, docs/money.md "Key spend limits"): holds that reserve a limited key's
 * requests in flight against its spend limit, exactly across processes. What the key has spent is the sum of its
 * usage lines since the period began: the ledger writes each in its charge's transaction, so the sum is exact
 * after any crash. A hold is taken only when spent + the key's unexpired holds + its amount stay within the limit,
 * decided under one lock per key (PostgreSQL: the key's row; SQLite: its single writer), and deleted once its
 * charge has landed, so between the two the request counts twice, never zero times.
 */

export type Micros = bigint;

export interface KeyHoldRequest {
  /** The key's account: its usage lines are read by account and key. */
  accountId: string;
  keyId: string;
  /** The request's own id (`hold:<request_id>`); taking it again is answered as taken. */
  holdId: string;
  amountMicros: Micros;
  limitMicros: Micros;
  /** Usage lines from this instant on count as spent in the period. */
  periodStartMs: number;
  nowMs: number;
  /** A hold no one released counts until then (its request's process died before its charge landed). */
  expiresAtMs: number;
}

/** What a key has used of its period: charged (usage lines) and held (unexpired holds). */
export interface KeySpend {
  spentMicros: Micros;
  heldMicros: Micros;
}

export type KeyHoldOutcome = { ok: true } | ({ ok: false } & KeySpend);

export interface KeyBudgetStore {
  reserve(request: KeyHoldRequest): Promise<KeyHoldOutcome>;
  /** Moves an existing hold's expiry later (a stream or job outlasting the TTL); a missing hold is left missing. */
  extend(holdId: string, expiresAtMs: number): Promise<void>;
  /** Deletes the hold; idempotent. */
  release(holdId: string): Promise<void>;
  /** What the key spent since `sinceMs` and holds now, for the dashboard. */
  spend(query: { accountId: string; keyId: string; sinceMs: number; nowMs: number }): Promise<KeySpend>;
}

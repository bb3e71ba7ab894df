/**
 * The idempotency-key port (DESIGN.md 3 "Client retries"; the rules are in src/domain/billing/idempotency.ts). One record
 * per (account, key): who claimed it, for which request (a fingerprint of operation and body), and, once the
 * request succeeded, the response to replay. Claims are atomic across processes: of two requests with one key,
 * exactly one runs.
 */

export type IdempotencyState = 'in_flight' | 'completed' | 'streamed';

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  /** SHA-256 of the operation and the canonical body: what "the same request" means. */
  fingerprint: string;
  /** The request that claimed the key (the owner). */
  requestId: string;
  state: IdempotencyState;
  /** completed: the response to replay; null when it was too large to keep. */
  statusCode: number | null;
  body: string | null;
  createdAtMs: number;
  /** The key is forgotten from here on (24 h after the claim). */
  expiresAtMs: number;
  /** in_flight: the owner is presumed alive until then; after it, its claim may be taken over. */
  lockedUntilMs: number;
  /** What the request creates that outlives it (`job`, `rental`, ...), from the contract; null when nothing does. */
  creates: string | null;
}

export type ClaimOutcome = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

export interface IdempotencyStore {
  /** Stores the record unless the key holds one that has not expired (then answers it, untouched). */
  claim(record: IdempotencyRecord, nowMs: number): Promise<ClaimOutcome>;
  /** The owner records how its request ended; nothing happens if `requestId` no longer owns the key. */
  complete(
    accountId: string,
    key: string,
    requestId: string,
    outcome: { state: 'completed'; statusCode: number; body: string | null } | { state: 'streamed' },
  ): Promise<void>;
  /** The owner gives the key back (its request failed: a retry may run it again). */
  release(accountId: string, key: string, requestId: string): Promise<void>;
  /** Moves an abandoned in-flight claim from `fromRequestId` to `record.requestId`; false if someone else did first. */
  takeOver(record: IdempotencyRecord, fromRequestId: string): Promise<boolean>;
  /** Forgets keys past their expiry; returns how many. */
  expire(nowMs: number): Promise<number>;
}

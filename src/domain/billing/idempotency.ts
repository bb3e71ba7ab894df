import { createHash } from 'node:crypto';
import { stringify } from 'safe-stable-stringify';
import type { IdempotencyRecord, IdempotencyStore } from '../../adapters/idempotency/index.js';
import type { Ledger } from '../../adapters/ledger/index.js';
import { ApiError } from '../../errors/api-error.js';

/** How a request that claimed its key ended: a response to keep, a stream (never replayed), or a failure. */
export type Ending =
  | { statusCode: number; body: unknown }
  | { statusCode: number; tooLargeToKeep: true }
  | 'streamed'
  | 'failed';

export type Begun =
  | { run: true; finish: (ending: Ending) => Promise<void> }
  | { run: false; statusCode: number; body: string };

export interface IdempotencySettings {
  now: () => number;
  /** How long a key is remembered (Stripe: 24 h). */
  keyTtlMs: number;
  /** How long a claim is presumed alive: the hold's TTL, by when its charge is settled or gone (DESIGN.md 4). */
  leaseMs: number;
  /** Responses larger than this are not kept for replay. */
  maxBodyBytes: number;
}

export interface IdempotentRequest {
  accountId: string;
  key: string;
  operationId: string;
  /** The path's parameters (the chat, the draft): the same key on another resource is another request. */
  params: Record<string, string>;
  /** The validated body: the same request is the same operation, path and body, key order aside. */
  body: unknown;
  requestId: string;
  stream: boolean;
  /**
   * What the operation creates that outlives the request (the contract's `x-idempotent-creates`: a job, a rental,
   * a volume, a burst order), or null for work whose only trace is its charge (chat, embeddings, rerank, images).
   */
  creates: string | null;
}

/** A retry may try again in a second while the first request is still running. */
const IN_FLIGHT_RETRY_AFTER_SEC = 1;

/**
 * `Idempotency-Key` on paid POSTs (DESIGN.md 3 "Client retries", Stripe's semantics; the contract's
 * IdempotencyKey parameter says it to clients). The first request with a key runs; a successful response is kept
 * and replayed to the same request for `keyTtlMs`, uncharged; a different request, a stream, or a retry while the
 * first runs is 409 `idempotency_conflict`. A failure keeps nothing, so a retry runs again (nothing was charged).
 * A claim whose owner died is taken over only when its request creates nothing that outlives it and the ledger
 * shows it was not charged: one key, one resource, one charge, across a crash at any instant.
 */
export class Idempotency {
  constructor(
    private readonly store: IdempotencyStore,
    private readonly ledger: Ledger,
    private readonly settings: IdempotencySettings,
  ) {}

  async begin(request: IdempotentRequest): Promise<Begun> {
    const nowMs = this.settings.now();
    const record: IdempotencyRecord = {
      accountId: request.accountId,
      key: request.key,
      fingerprint: fingerprintOf(request.operationId, request.params, request.body),
      requestId: request.requestId,
      state: 'in_flight',
      statusCode: null,
      body: null,
      createdAtMs: nowMs,
      expiresAtMs: nowMs + this.settings.keyTtlMs,
      lockedUntilMs: nowMs + this.settings.leaseMs,
      creates: request.creates,
    };
    const claim = await this.store.claim(record, nowMs);
    if (claim.claimed) return this.running(record);
    const first = claim.existing;
    if (first.fingerprint !== record.fingerprint)
      throw conflict('This idempotency key was used with a different request', first);
    if (first.state === 'streamed' || request.stream)
      throw conflict('This idempotency key was used by a stream, which cannot be replayed', first);
    if (first.state === 'completed') {
      if (first.body === null || first.statusCode === null)
        throw conflict(
          'The first request with this key succeeded and was charged; its response was too large to keep for replay',
          first,
        );
      return { run: false, statusCode: first.statusCode, body: first.body };
    }
    if (first.lockedUntilMs > nowMs)
      throw conflict(
        'The first request with this key is still running; retry shortly',
        first,
        IN_FLIGHT_RETRY_AFTER_SEC,
      );
    // Its owner is gone (the lease is the hold's TTL). A request that creates something may have created it, held
    // money for it or be running it still (a job is resumed by another process): it is never run a second time.
    if (first.creates !== null) {
      throw conflict(
        `The first request with this key stopped before it answered and may have created a ${first.creates}; look for it before retrying with a new key`,
        first,
        undefined,
        { creates: first.creates },
      );
    }
    // Otherwise its only trace is its charge: run again only if that request was never charged.
    if (await this.charged(first.requestId))
      throw conflict(
        'The first request with this key was charged but its response was lost; see it in the usage log',
        first,
      );
    if (!(await this.store.takeOver(record, first.requestId)))
      throw conflict(
        'The first request with this key is still running; retry shortly',
        first,
        IN_FLIGHT_RETRY_AFTER_SEC,
      );
    return this.running(record);
  }

  private running(record: IdempotencyRecord): Begun {
    const { accountId, key, requestId } = record;
    return {
      run: true,
      finish: async (ending) => {
        if (ending === 'failed') return this.store.release(accountId, key, requestId);
        if (ending === 'streamed') return this.store.complete(accountId, key, requestId, { state: 'streamed' });
        const body = 'body' in ending ? JSON.stringify(ending.body) : null;
        const kept = body !== null && Buffer.byteLength(body) <= this.settings.maxBodyBytes ? body : null;
        return this.store.complete(accountId, key, requestId, {
          state: 'completed',
          statusCode: ending.statusCode,
          body: kept,
        });
      },
    };
  }

  /**
   * Whether a request's charge was posted: its hold settled, captured from a lease, or charged late after its hold
   * expired (billing.ts).
   */
  private async charged(requestId: string): Promise<boolean> {
    const hold = await this.ledger.getHold(`hold:${requestId}`);
    if (hold?.status === 'posted') return true;
    const transfers = await Promise.all(
      [`charge:${requestId}`, `late:${requestId}`].map((id) => this.ledger.getTransfer(id)),
    );
    return transfers.some((t) => t !== null);
  }
}

/** SHA-256 of the operation and the body with its keys sorted: whitespace and key order do not make a request new. */
export function fingerprintOf(operationId: string, params: Record<string, string>, body: unknown): string {
  // Operations without path parameters keep the fingerprint they had before parameters counted (keys live 24 h).
  const path = Object.keys(params).length === 0 ? '' : `${stringify(params)}\n`;
  return createHash('sha256')
    .update(`${operationId}\n${path}${stringify(body) ?? ''}`)
    .digest('hex');
}

/** 409 naming the first request; one still in flight is worth retrying (Retry-After, and x-should-retry for the SDKs). */
function conflict(
  message: string,
  first: IdempotencyRecord,
  retryAfterSec?: number,
  meta: Record<string, string> = {},
): ApiError {
  const headers: Record<string, string> =
    retryAfterSec === undefined ? {} : { 'Retry-After': String(retryAfterSec), 'x-should-retry': 'true' };
  return new ApiError('idempotency_conflict', message, {
    meta: { first_request_id: first.requestId, ...meta },
    headers,
  });
}

import type { AccountRecord, ApiKeyStore, KeyResolution, KeySpendLimit } from '../../adapters/api-keys/index.js';
import { ApiError } from '../../errors/api-error.js';
import { hashApiKey, looksLikeApiKey } from './api-key-secret.js';
import type { AuthFailures } from './auth-failures.js';
import type { KeyUsageRecorder } from './key-usage-recorder.js';

export interface Principal {
  accountId: string;
  keyId: string;
  account: AccountRecord;
  /** The key's own per-minute limit; null = the configured default (SPEC 8). */
  keyRateLimitPerMinute: number | null;
  /** The key holds the `keys` scope: it may create and revoke the account's keys. */
  managesKeys: boolean;
  /**
   * Set when a signed-in session makes the call (src/domain/accounts/sessions.ts), null for an API key. A session
   * acts as the account's first key would; `keyId` is then its sign-in's family, the window its rate limit counts.
   */
  sessionId: string | null;
  /** The key's own spend limit (issue 26 item 6); null: none, the request reserves as before. */
  keySpendLimit: KeySpendLimit | null;
}

interface CacheEntry {
  /** null: the key is unknown (kept as briefly as a found one, so a repeated bad key costs no lookup). */
  resolution: KeyResolution | null;
  expiresAtMs: number;
}

/** Found and unknown keys are kept apart, so a flood of random keys never pushes real ones out. */
class BoundedCache {
  readonly entries = new Map<string, CacheEntry>();

  set(hash: string, entry: CacheEntry): void {
    if (this.entries.size >= CACHE_CAPACITY) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(hash, entry);
  }
}

const CACHE_CAPACITY = 10_000;

/**
 * Turns a presented API key into the account it acts for, or the exact failure of SPEC 5.4. Resolutions are
 * cached for `cacheTtlMs` so the hot path does not ask the database on every call; revocation through this
 * process invalidates at once, through another process within the TTL. Unknown keys are cached too (a new key
 * is random, so no one presents it before it exists), and an address that keeps presenting unknown keys is
 * refused with 429 `auth_rate_limited` before any lookup (AuthFailures).
 */
export class Authenticator {
  private readonly found = new BoundedCache();
  private readonly unknown = new BoundedCache();

  constructor(
    private readonly store: ApiKeyStore,
    private readonly usage: KeyUsageRecorder,
    private readonly options: { cacheTtlMs: number; now: () => number; failures: AuthFailures },
  ) {}

  /** `clientAddress`: where the request came from (the peer, or the client a trusted proxy names). */
  async authenticate(presentedKey: string, clientAddress = ''): Promise<Principal> {
    const { failures } = this.options;
    const unknown = (): never => {
      failures.record(clientAddress);
      throw new ApiError('invalid_api_key');
    };
    if (!looksLikeApiKey(presentedKey)) return unknown();
    const hash = hashApiKey(presentedKey);
    const resolution = await this.resolve(hash, clientAddress);
    if (resolution === null) return unknown();
    if (resolution.key.revokedAtMs !== null) throw new ApiError('api_key_revoked');
    if (resolution.account === null) throw new ApiError('user_not_found');
    // Issue 26 item 8: an operator's lock refuses every key of the account; it is read with the key, so it is
    // seen at once where the cache was invalidated and within the cache TTL elsewhere, as a revocation is.
    if (resolution.account.lockedAtMs !== null) throw new ApiError('account_locked');
    this.usage.record(resolution.key.id, this.options.now());
    return {
      accountId: resolution.account.id,
      keyId: resolution.key.id,
      account: resolution.account,
      keyRateLimitPerMinute: resolution.key.rateLimitPerMinute,
      managesKeys: resolution.key.managesKeys,
      sessionId: null,
      keySpendLimit: resolution.key.spendLimit,
    };
  }

  /** Drops cached resolutions of one key (after a revocation) or of one account (after a change to it, a lock). */
  invalidate(match: { keyId?: string; accountId?: string }): void {
    for (const [hash, entry] of this.found.entries) {
      const key = entry.resolution!.key;
      if (key.id === match.keyId || key.accountId === match.accountId) this.found.entries.delete(hash);
    }
  }

  private async resolve(hash: string, clientAddress: string): Promise<KeyResolution | null> {
    const now = this.options.now();
    const cached = this.found.entries.get(hash) ?? this.unknown.entries.get(hash);
    if (cached !== undefined && cached.expiresAtMs > now) return cached.resolution;
    this.options.failures.refuseWhileOver(clientAddress);
    let resolution: KeyResolution | null;
    try {
      resolution = await this.store.resolveKey(hash);
    } catch {
      // The key store is down: a retryable 503, not a 500 and not a 401 that would make a client drop its key.
      throw new ApiError('not_ready', 'The key store is unreachable');
    }
    if (this.options.cacheTtlMs > 0)
      (resolution === null ? this.unknown : this.found).set(hash, {
        resolution,
        expiresAtMs: now + this.options.cacheTtlMs,
      });
    return resolution;
  }
}

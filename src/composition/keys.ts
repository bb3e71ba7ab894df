import type { Logger } from 'pino';
import { SqlApiKeyStore } from '../adapters/api-keys/sql.js';
import { SqlCredentialStore } from '../adapters/credential-store/sql.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import { AuthFailures } from '../domain/keys/auth-failures.js';
import { Authenticator } from '../domain/keys/authenticator.js';
import { KeyUsageRecorder } from '../domain/keys/key-usage-recorder.js';

/**
 * API keys: the store, the authenticator with its cache and its bound on unknown keys (shared with refresh tokens:
 * one count of unknown credentials per address), the batched last-use times; and the sign-in credentials and
 * sessions of the same accounts (issue 26).
 */
export function buildKeys(db: Database, config: Config, now: () => number, logger: Logger) {
  const apiKeys = new SqlApiKeyStore(db);
  const keyUsage = new KeyUsageRecorder(apiKeys, (err) => logger.warn({ err }, 'could not record key use'));
  keyUsage.start(config.KEY_USAGE_FLUSH_MS);
  const failures = new AuthFailures({
    limit: config.AUTH_FAILURES_PER_MINUTE,
    windowMs: 60_000,
    maxAddresses: 100_000,
    now,
  });
  const authenticator = new Authenticator(apiKeys, keyUsage, {
    cacheTtlMs: config.API_KEY_CACHE_TTL_MS,
    now,
    failures,
  });
  return { apiKeys, keyUsage, authenticator, failures, credentials: new SqlCredentialStore(db) };
}

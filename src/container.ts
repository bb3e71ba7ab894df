import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { createClient } from 'redis';
import type { Logger } from 'pino';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { Config } from './config.js';
import { connectDatabase, type Database } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import type { ApiKeyStore } from './adapters/api-keys/index.js';
import { SqlApiKeyStore } from './adapters/api-keys/sql.js';
import type { Ledger } from './adapters/ledger/index.js';
import { SqlLedger } from './adapters/ledger/sql.js';
import type { RateLimiter } from './adapters/rate-limiter/index.js';
import { MemoryRateLimiter } from './adapters/rate-limiter/memory.js';
import { RedisRateLimiter } from './adapters/rate-limiter/redis.js';
import { FailOpenRateLimiter } from './adapters/rate-limiter/fail-open.js';
import type { UsageLogStore } from './adapters/usage-log/index.js';
import { SqlUsageLogStore } from './adapters/usage-log/sql.js';
import { Authenticator } from './domain/authenticator.js';
import { Billing } from './domain/billing.js';
import { HoldSweeper } from './domain/hold-sweeper.js';
import { KeyUsageRecorder } from './domain/key-usage-recorder.js';
import { UsageLogWriter } from './domain/usage-log-writer.js';
import { UsageReader } from './domain/usage-reader.js';
import { fxRateToMicro } from './domain/money.js';
import { loadCatalogFile } from './domain/catalog/catalog-file.js';
import { ModelCatalog } from './domain/catalog/model-catalog.js';
import { PROJECT_ROOT } from './project-root.js';

export const CONTRACT_FILE = `${PROJECT_ROOT}generated/openapi.bundled.yaml`;

/** Everything a handler may use; built once in the composition root below. */
export interface Deps {
  config: Config;
  logger: Logger;
  now: () => number;
  contract: OpenAPIV3.DocumentV3_1;
  db: Database;
  apiKeys: ApiKeyStore;
  authenticator: Authenticator;
  keyUsage: KeyUsageRecorder;
  catalog: ModelCatalog;
  ledger: Ledger;
  billing: Billing;
  usageLog: UsageLogStore;
  usageWriter: UsageLogWriter;
  /** Reads for the usage endpoints (read-your-writes, 503 when unreachable). */
  usage: UsageReader;
  rateLimiter: RateLimiter;
  /** Today's RUB per USD × 1e6 (SPEC 2.6 `market` pricing). */
  marketFxRateRubMicro: bigint;
  close(): Promise<void>;
}

/** Reads the bundled contract (the source of truth the validator and the catalog checks use). */
export function loadContract(): OpenAPIV3.DocumentV3_1 {
  return parseYaml(readFileSync(CONTRACT_FILE, 'utf8')) as OpenAPIV3.DocumentV3_1;
}

/**
 * REDIS_URL set: one sliding window shared by every gateway process, answered locally while Redis is down
 * (fail open, logged). Unset: the in-process limiter of the embedded default.
 */
async function buildRateLimiter(config: Config, logger: Logger): Promise<{ limiter: RateLimiter; close: () => Promise<void> }> {
  const local = new MemoryRateLimiter();
  if (config.REDIS_URL === undefined) return { limiter: local, close: async () => undefined };
  const client = createClient({
    url: config.REDIS_URL,
    disableOfflineQueue: true,
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(retries * 200, 2000) },
  });
  client.on('error', (err) => logger.debug({ err }, 'redis'));
  await client.connect().catch((err: unknown) => logger.warn({ err }, 'redis unreachable at start; limiting locally until it answers'));
  const limiter = new FailOpenRateLimiter({
    primary: new RedisRateLimiter(client),
    fallback: local,
    logger,
    isPrimaryReady: () => client.isReady,
    timeoutMs: config.RATE_LIMIT_REDIS_TIMEOUT_MS,
  });
  return { limiter, close: async () => void (await client.close().catch(() => undefined)) };
}

/** The composition root: adapters are chosen by configuration here, nowhere else (DESIGN.md 1). */
export async function buildDeps(config: Config, logger: Logger, now: () => number = Date.now): Promise<Deps> {
  const contract = loadContract();
  const catalog = new ModelCatalog(loadCatalogFile(config.CATALOG_FILE, contract.components?.schemas ?? {}));
  const db = connectDatabase(config.DATABASE_URL, {
    log: { warn: (m) => logger.warn({ detail: m }, 'database'), error: (m) => logger.error({ detail: m }, 'database') },
  });
  await migrateToLatest(db);
  const apiKeys = new SqlApiKeyStore(db);
  const keyUsage = new KeyUsageRecorder(apiKeys, (err) => logger.warn({ err }, 'could not record key use'));
  keyUsage.start(config.KEY_USAGE_FLUSH_MS);
  const authenticator = new Authenticator(apiKeys, keyUsage, { cacheTtlMs: config.API_KEY_CACHE_TTL_MS, now });
  const ledger = new SqlLedger(db);
  const sweeper = new HoldSweeper(ledger, now, (err) => logger.warn({ err }, 'hold sweep failed'));
  sweeper.start(config.HOLD_SWEEP_MS);
  const usageLog = new SqlUsageLogStore(db);
  const usageWriter = new UsageLogWriter(usageLog, {
    flushMs: config.USAGE_FLUSH_MS,
    maxBatch: config.USAGE_MAX_BATCH,
    onError: (err) => logger.error({ err }, 'usage log write failed'),
  });
  const billing = new Billing(ledger, usageWriter, { now, holdTtlMs: config.BILLING_HOLD_TTL_MS, logger });
  const rateLimiting = await buildRateLimiter(config, logger);
  return {
    config,
    logger,
    now,
    contract,
    db,
    apiKeys,
    authenticator,
    keyUsage,
    catalog,
    ledger,
    billing,
    usageLog,
    usageWriter,
    usage: new UsageReader(usageLog, usageWriter),
    rateLimiter: rateLimiting.limiter,
    marketFxRateRubMicro: fxRateToMicro(config.MARKET_FX_RATE_RUB),
    async close() {
      sweeper.stop();
      await keyUsage.stop();
      await usageWriter.stop();
      await rateLimiting.close();
      await db.knex.destroy();
    },
  };
}

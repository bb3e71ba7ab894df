import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { Logger } from 'pino';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { Config } from './config.js';
import { connectDatabase, type Database } from './db/connect.js';
import { migrateToLatest } from './db/migrate.js';
import type { ApiKeyStore } from './adapters/api-keys/index.js';
import { SqlApiKeyStore } from './adapters/api-keys/sql.js';
import { Authenticator } from './domain/authenticator.js';
import { KeyUsageRecorder } from './domain/key-usage-recorder.js';
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
  close(): Promise<void>;
}

/** Reads the bundled contract (the source of truth the validator and the catalog checks use). */
export function loadContract(): OpenAPIV3.DocumentV3_1 {
  return parseYaml(readFileSync(CONTRACT_FILE, 'utf8')) as OpenAPIV3.DocumentV3_1;
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
    async close() {
      await keyUsage.stop();
      await db.knex.destroy();
    },
  };
}

import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { connectDatabase, type Database } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import { startCheckpointer } from '../db/sqlite-checkpointer.js';
import { blameSetting, redactedUrl } from '../runtime/startup.js';

/**
 * The database of DATABASE_URL, shown reachable: a SQLite path that cannot be a file (its parent is one) or a
 * PostgreSQL that does not answer stops the start naming the setting, not a migration's stack.
 */
async function openDatabase(config: Config, logger: Logger): Promise<Database> {
  const shown = redactedUrl(config.DATABASE_URL);
  const db = await blameSetting('DATABASE_URL', shown, () =>
    connectDatabase(config.DATABASE_URL, {
      log: {
        warn: (m) => logger.warn({ detail: m }, 'database'),
        error: (m) => logger.error({ detail: m }, 'database'),
      },
      sqliteSynchronous: config.SQLITE_SYNCHRONOUS,
    }),
  );
  try {
    await blameSetting('DATABASE_URL', shown, () => db.knex.raw('select 1'));
  } catch (err) {
    await db.knex.destroy();
    throw err;
  }
  return db;
}

/** The database, migrated to the latest schema, with SQLite's WAL checkpointed on a timer (null on PostgreSQL). */
export async function openMigratedDatabase(config: Config, logger: Logger) {
  const db = await openDatabase(config, logger);
  await migrateToLatest(db);
  const checkpointer = db.file
    ? startCheckpointer(db.file, config.SQLITE_CHECKPOINT_MS, (failure) =>
        logger.warn({ failure }, 'WAL checkpoint failed'),
      )
    : null;
  return { db, checkpointer };
}

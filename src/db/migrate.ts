import type { Knex } from 'knex';
import type { Database } from './connect.js';
import { type FunctionSet, installFunctionSet } from './install-functions.js';
import { LEDGER_FUNCTIONS_SQL } from './ledger-functions/ledger-functions.sql.js';
import * as m0001 from './migrations/0001-accounts-and-keys.js';
import * as m0002 from './migrations/0002-ledger.js';
import * as m0003 from './migrations/0003-usage-log.js';
import * as m0004 from './migrations/0004-limits-and-rub-billing.js';
import * as m0005 from './migrations/0005-ledger-batches.js';
import * as m0006 from './migrations/0006-idempotency-keys.js';
import * as m0007 from './migrations/0007-key-scopes.js';
import * as m0008 from './migrations/0008-jobs.js';
import * as m0009 from './migrations/0009-chats.js';
import * as m0010 from './migrations/0010-ledger-payouts.js';
import * as m0011 from './migrations/0011-marketplace.js';
import * as m0012 from './migrations/0012-burst-orders.js';
import * as m0013 from './migrations/0013-ssh-proxy.js';
import * as m0014 from './migrations/0014-rental-alerts.js';
import * as m0015 from './migrations/0015-ssh-keys.js';
import * as m0016 from './migrations/0016-instance-last-gpus.js';
import * as m0017 from './migrations/0017-rental-settlements.js';
import * as m0018 from './migrations/0018-machine-reliability.js';
import * as m0019 from './migrations/0019-volumes.js';
import * as m0020 from './migrations/0020-ledger-refund-index.js';
import * as m0021 from './migrations/0021-ledger-without-rowid.js';
import * as m0022 from './migrations/0022-idempotency-creates.js';
import * as m0023 from './migrations/0023-listing-prices.js';
import * as m0024 from './migrations/0024-rental-commitment.js';
import * as m0025 from './migrations/0025-ledger-charges-commit-async.js';
import * as m0026 from './migrations/0026-ledger-locks-by-key.js';
import * as m0027 from './migrations/0027-schema-functions.js';
import * as m0028 from './migrations/0028-credentials-and-sessions.js';
import * as m0029 from './migrations/0029-key-spend-limits.js';
import * as m0030 from './migrations/0030-account-locks.js';
import * as m0031 from './migrations/0031-server-secrets.js';
import * as m0032 from './migrations/0032-deposits.js';
import * as m0033 from './migrations/0033-account-debts.js';
import * as m0034 from './migrations/0034-withdrawals.js';

interface NamedMigration {
  name: string;
  migration: Knex.Migration;
}

/**
 * Every migration, in order. Listed in code rather than found by scanning a directory, so tsx (.ts sources)
 * and compiled JS (dist/) see exactly the same set. Names are stored in knex_migrations: never rename one.
 */
const MIGRATIONS: readonly NamedMigration[] = [
  { name: '0001-accounts-and-keys', migration: m0001 },
  { name: '0002-ledger', migration: m0002 },
  { name: '0003-usage-log', migration: m0003 },
  { name: '0004-limits-and-rub-billing', migration: m0004 },
  { name: '0005-ledger-batches', migration: m0005 },
  { name: '0006-idempotency-keys', migration: m0006 },
  { name: '0007-key-scopes', migration: m0007 },
  { name: '0008-jobs', migration: m0008 },
  { name: '0009-chats', migration: m0009 },
  { name: '0010-ledger-payouts', migration: m0010 },
  { name: '0011-marketplace', migration: m0011 },
  { name: '0012-burst-orders', migration: m0012 },
  { name: '0013-ssh-proxy', migration: m0013 },
  { name: '0014-rental-alerts', migration: m0014 },
  { name: '0015-ssh-keys', migration: m0015 },
  { name: '0016-instance-last-gpus', migration: m0016 },
  { name: '0017-rental-settlements', migration: m0017 },
  { name: '0018-machine-reliability', migration: m0018 },
  { name: '0019-volumes', migration: m0019 },
  { name: '0020-ledger-refund-index', migration: m0020 },
  { name: '0021-ledger-without-rowid', migration: m0021 },
  { name: '0022-idempotency-creates', migration: m0022 },
  { name: '0023-listing-prices', migration: m0023 },
  { name: '0024-rental-commitment', migration: m0024 },
  { name: '0025-ledger-charges-commit-async', migration: m0025 },
  { name: '0026-ledger-locks-by-key', migration: m0026 },
  { name: '0027-schema-functions', migration: m0027 },
  { name: '0028-credentials-and-sessions', migration: m0028 },
  { name: '0029-key-spend-limits', migration: m0029 },
  { name: '0030-account-locks', migration: m0030 },
  { name: '0031-server-secrets', migration: m0031 },
  { name: '0032-deposits', migration: m0032 },
  { name: '0033-account-debts', migration: m0033 },
  { name: '0034-withdrawals', migration: m0034 },
];

const migrationSource: Knex.MigrationSource<NamedMigration> = {
  getMigrations: async () => [...MIGRATIONS],
  getMigrationName: (m) => m.name,
  getMigration: async (m) => m.migration,
};

/** PostgreSQL's function sets, installed by content once the tables are there (install-functions.ts). */
const FUNCTION_SETS: readonly FunctionSet[] = [{ name: 'ledger', sql: LEDGER_FUNCTIONS_SQL }];

/**
 * Brings the schema to the latest version; a no-op when already there. Same migrations on SQLite and PostgreSQL;
 * on PostgreSQL, then, the functions of today, unless the database already runs exactly them.
 */
export async function migrateToLatest(db: Database): Promise<void> {
  if (db.kind === 'sqlite') return void (await db.knex.migrate.latest({ migrationSource }));
  await oneMigratorAtATime(db, async () => {
    await db.knex.migrate.latest({ migrationSource });
    for (const set of FUNCTION_SETS) await installFunctionSet(db.knex, set);
  });
}

/**
 * Processes of a scale-out deployment start together on one database (DESIGN.md 13); knex's own lock row is made by
 * the first migration, so on a fresh database they would race to create it and all but one fail. A session advisory
 * lock on the schema's name, held on one connection, makes the others wait and then find nothing left to do.
 */
async function oneMigratorAtATime(db: Database, migrate: () => Promise<void>): Promise<void> {
  const connection = await db.knex.client.acquireConnection();
  const lockSql = (fn: string) => db.knex.raw(`select ${fn}(hashtext(current_schema()))`).connection(connection);
  try {
    await lockSql('pg_advisory_lock');
    try {
      await migrate();
    } finally {
      await lockSql('pg_advisory_unlock');
    }
  } finally {
    await db.knex.client.releaseConnection(connection);
  }
}

/**
 * Runs the next pending migration alone, as a release that shipped only up to it would have (and nothing else:
 * no functions); answers its name, or null when none is left. For tests that upgrade an old schema step by step.
 */
export async function migrateOneStep(db: Database): Promise<string | null> {
  const [, names] = (await db.knex.migrate.up({ migrationSource })) as [number, string[]];
  return names[0] ?? null;
}

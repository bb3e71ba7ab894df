/**
 * Admin CLI: `npm run --silent admin -- <group> <action> [options]`.
 *
 * stdout carries exactly one JSON object per successful run so it pipes into `jq`. Failures print one JSON line
 * `{"error": code, "message": …}` on stderr: exit 2 for usage mistakes, 1 for everything else. User mistakes
 * never print a stack trace; set ADMIN_DEBUG=1 to see one for unexpected (infrastructure) failures.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { SqlApiKeyStore } from '../adapters/api-keys/sql.js';
import { loadConfig } from '../config.js';
import { connectDatabase, type Database } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import * as accounts from '../domain/accounts.js';
import { isDomainError } from '../domain/domain-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;
type Output = Record<string, unknown>;

/** `prepare` checks the arguments before any database work, then returns the step that needs the store. */
interface Command {
  usage: string;
  options: Options;
  prepare(values: Values): (store: SqlApiKeyStore) => Promise<Output>;
}

class UsageError extends Error {}

const USAGE_EXIT = 2;
const FAILURE_EXIT = 1;

function required(values: Values, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value.trim() === '') throw new UsageError(`--${name} is required`);
  return value;
}

function repeated(values: Values, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function parsePercent(label: string, raw: string): number {
  // Number('') is 0 and Number('1e1') is 10: insist on a plain decimal so typos are not read as a discount.
  if (!/^\d+(\.\d+)?$/.test(raw.trim())) throw new UsageError(`${label} must be a number between 0 and 100 (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

function parseTiers(raw: string[]): Record<string, number> {
  const tiers: Record<string, number> = {};
  for (const entry of raw) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new UsageError(`--tier takes NAME=PERCENT (got ${JSON.stringify(entry)})`);
    tiers[entry.slice(0, at).trim()] = parsePercent(`--tier ${entry.slice(0, at)}`, entry.slice(at + 1));
  }
  return tiers;
}

const commands: Record<string, Command> = {
  'accounts create': {
    usage: 'accounts create --email EMAIL',
    options: { email: { type: 'string' } },
    prepare(values) {
      const email = required(values, 'email');
      return async (store) => {
        const account = await accounts.createAccount(store, { email });
        const { record, secret } = await accounts.issueKey(store, account.id);
        return { account_id: account.id, api_key: secret, key_id: record.id };
      };
    },
  },
  'accounts delete': {
    usage: 'accounts delete --account ACCOUNT_ID',
    options: { account: { type: 'string' } },
    prepare(values) {
      const accountId = required(values, 'account');
      return async (store) => {
        await accounts.deleteAccount(store, accountId);
        return { account_id: accountId, deleted: true };
      };
    },
  },
  'accounts discount': {
    usage: 'accounts discount --account ACCOUNT_ID --percent P [--tier NAME=P ...]',
    options: { account: { type: 'string' }, percent: { type: 'string' }, tier: { type: 'string', multiple: true } },
    prepare(values) {
      const accountId = required(values, 'account');
      const discountPercent = parsePercent('--percent', required(values, 'percent'));
      const tierDiscounts = parseTiers(repeated(values, 'tier'));
      return async (store) => {
        const account = await accounts.setDiscounts(store, accountId, { discountPercent, tierDiscounts });
        return { account_id: account.id, discount_percent: account.discountPercent, tier_discounts: account.tierDiscounts };
      };
    },
  },
  'keys create': {
    usage: 'keys create --account ACCOUNT_ID [--name NAME]',
    options: { account: { type: 'string' }, name: { type: 'string' } },
    prepare(values) {
      const accountId = required(values, 'account');
      const name = typeof values.name === 'string' ? values.name : accounts.DEFAULT_KEY_NAME;
      return async (store) => {
        const { record, secret } = await accounts.issueKey(store, accountId, name);
        return { key_id: record.id, api_key: secret };
      };
    },
  },
  'keys revoke': {
    usage: 'keys revoke --key-id KEY_ID',
    options: { 'key-id': { type: 'string' } },
    prepare(values) {
      const keyId = required(values, 'key-id');
      return async (store) => {
        // Revoking an already revoked key reports the original time (the store keeps the first one).
        const key = await accounts.revokeKey(store, null, keyId);
        return { key_id: key.id, revoked_at: new Date(key.revokedAtMs ?? Date.now()).toISOString() };
      };
    },
  },
};

const usageText = () => `usage: admin <command>\n${Object.values(commands).map((c) => `  ${c.usage}`).join('\n')}`;

/** Picks the command from the first two words and parses the rest strictly against that command's options. */
function parseCommand(argv: string[]): (store: SqlApiKeyStore) => Promise<Output> {
  const command = commands[`${argv[0] ?? ''} ${argv[1] ?? ''}`];
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(argv.slice(0, 2).join(' '))}\n${usageText()}`);
  try {
    const { values } = parseArgs({ args: argv.slice(2), options: command.options, strict: true, allowPositionals: false });
    return command.prepare(values);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${err instanceof Error ? err.message : String(err)}\nusage: admin ${command.usage}`);
  }
}

async function withStore<T>(run: (store: SqlApiKeyStore) => Promise<T>): Promise<T> {
  const db: Database = connectDatabase(loadConfig().DATABASE_URL);
  try {
    await migrateToLatest(db);
    return await run(new SqlApiKeyStore(db));
  } finally {
    await db.knex.destroy();
  }
}

function fail(exitCode: number, error: string, message: string): void {
  process.stderr.write(`${JSON.stringify({ error, message })}\n`);
  process.exitCode = exitCode;
}

async function main(argv: string[]): Promise<void> {
  try {
    const step = parseCommand(argv);
    const output = await withStore(step);
    process.stdout.write(`${JSON.stringify(output)}\n`);
  } catch (err) {
    if (err instanceof UsageError) return fail(USAGE_EXIT, 'usage', err.message);
    if (isDomainError(err)) return fail(FAILURE_EXIT, err.code, err.message);
    // Infrastructure trouble (database unreachable, bad configuration): still one JSON line; the stack only on request.
    if (process.env.ADMIN_DEBUG) console.error(err);
    fail(FAILURE_EXIT, 'internal_error', err instanceof Error ? err.message : String(err));
  }
}

await main(process.argv.slice(2));

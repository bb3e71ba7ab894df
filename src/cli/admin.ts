/**
 * Admin CLI: `npm run --silent admin -- <group> <action> [options]`.
 *
 * stdout carries exactly one JSON object per successful run so it pipes into `jq`. Failures print one JSON line
 * `{"error": code, "message": …}` on stderr: exit 2 for usage mistakes, 1 for everything else. User mistakes
 * never print a stack trace; set ADMIN_DEBUG=1 to see one for unexpected (infrastructure) failures.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { SqlApiKeyStore } from '../adapters/api-keys/sql.js';
import { SqlCredentialStore } from '../adapters/credential-store/sql.js';
import { balanceMicros } from '../adapters/ledger/index.js';
import { openLedger } from '../adapters/ledger/open.js';
import { SqlMarketStore } from '../adapters/market-store/sql.js';
import { SqlWithdrawalStore } from '../adapters/withdrawal-store/sql.js';
import { buildPayments } from '../composition/payments.js';
import { buildRentalBilling } from '../composition/rental-billing.js';
import { loadConfig } from '../config.js';
import { connectDatabase, type Database } from '../db/connect.js';
import { migrateToLatest } from '../db/migrate.js';
import * as accounts from '../domain/accounts/accounts.js';
import { fromMicro, fxRateToMicro, microsToUsd, usdToMicros } from '../domain/billing/money.js';
import { topUp } from '../domain/billing/top-up.js';
import { setVerification } from '../domain/market/machines.js';
import { DomainError, isDomainError } from '../errors/domain-error.js';
import { accountCommands } from './account-commands.js';
import { type Command, type Output, required, type Stores, UsageError, type Values } from './command.js';
import { paymentCommands } from './payment-commands.js';

const USAGE_EXIT = 2;
const FAILURE_EXIT = 1;

function repeated(values: Values, name: string): string[] {
  const value = values[name];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function parsePercent(label: string, raw: string): number {
  // Number('') is 0 and Number('1e1') is 10: insist on a plain decimal so typos are not read as a discount.
  if (!/^\d+(\.\d+)?$/.test(raw.trim()))
    throw new UsageError(`${label} must be a number between 0 and 100 (got ${JSON.stringify(raw)})`);
  return Number(raw);
}

/** A positive decimal amount (USD, RUB or a rate) as micro-units; no exponents, signs or spaces. */
function parseAmount(label: string, raw: string): bigint {
  if (!/^\d+(\.\d{1,6})?$/.test(raw.trim()))
    throw new UsageError(`${label} must be a positive decimal with at most 6 decimals (got ${JSON.stringify(raw)})`);
  const micros = usdToMicros(Number(raw));
  if (micros <= 0n) throw new UsageError(`${label} must be positive`);
  return micros;
}

/** `--per-minute N` or `--per-minute default` (back to the configured default). */
function parseLimit(raw: string): number | null {
  if (raw.trim() === 'default') return null;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1)
    throw new UsageError(`--per-minute must be a positive whole number or "default" (got ${JSON.stringify(raw)})`);
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
    usage: 'accounts create --email EMAIL [--balance-usd N]',
    options: { email: { type: 'string' }, 'balance-usd': { type: 'string' } },
    prepare(values) {
      const email = required(values, 'email');
      const opening =
        typeof values['balance-usd'] === 'string' ? parseAmount('--balance-usd', values['balance-usd']) : null;
      return async ({ store, ledger, marketRateMicro }) => {
        const account = await accounts.createAccount(store, { email });
        const { record, secret } = await accounts.issueKey(store, account.id);
        if (opening !== null) {
          await topUp(ledger, store, {
            accountId: account.id,
            usdMicros: opening,
            marketRateMicro,
            id: `topup:opening:${account.id}`,
            nowMs: Date.now(),
          });
        }
        const created = { account_id: account.id, api_key: secret, key_id: record.id };
        return opening === null ? created : { ...created, balance_usd: microsToUsd(opening) };
      };
    },
  },
  topup: {
    usage: 'topup --account ACCOUNT_ID --usd N [--rub N | --fx-rate RUB_PER_USD] [--id IDEMPOTENCY_KEY]',
    options: {
      account: { type: 'string' },
      usd: { type: 'string' },
      rub: { type: 'string' },
      'fx-rate': { type: 'string' },
      id: { type: 'string' },
    },
    prepare(values) {
      const accountId = required(values, 'account');
      const usdMicros = parseAmount('--usd', required(values, 'usd'));
      const rubMicro = typeof values.rub === 'string' ? parseAmount('--rub', values.rub) : undefined;
      const fxRateRubMicro =
        typeof values['fx-rate'] === 'string' ? parseAmount('--fx-rate', values['fx-rate']) : undefined;
      const rub = rubMicro === undefined && fxRateRubMicro === undefined ? undefined : { rubMicro, fxRateRubMicro };
      const id = typeof values.id === 'string' ? `topup:${values.id}` : undefined;
      return async ({ store, ledger, marketRateMicro, settleRentals }) => {
        // SPEC 4.5: a top-up settles the account's rentals first, so what they ran before it is charged before it.
        await settleRentals(accountId);
        const { transfer, lot } = await topUp(ledger, store, {
          accountId,
          usdMicros,
          rub,
          marketRateMicro,
          id,
          nowMs: Date.now(),
        });
        const balance = await ledger.getBalance(accountId);
        return {
          account_id: accountId,
          topup_id: transfer.id,
          amount_usd: microsToUsd(transfer.amountMicros),
          currency: lot.currency,
          fx_rate_rub: fromMicro(lot.fxRateRubMicro),
          balance_usd: microsToUsd(balanceMicros(balance)),
        };
      };
    },
  },
  'accounts limit': {
    usage: 'accounts limit --account ACCOUNT_ID --per-minute N|default',
    options: { account: { type: 'string' }, 'per-minute': { type: 'string' } },
    prepare(values) {
      const accountId = required(values, 'account');
      const perMinute = parseLimit(required(values, 'per-minute'));
      return async ({ store }) => {
        if (!(await store.updateAccountSettings(accountId, { rateLimitPerMinute: perMinute })))
          throw new DomainError('account_not_found', `No account ${accountId}`);
        return { account_id: accountId, requests_per_minute: perMinute };
      };
    },
  },
  'keys limit': {
    usage: 'keys limit --key-id KEY_ID --per-minute N|default',
    options: { 'key-id': { type: 'string' }, 'per-minute': { type: 'string' } },
    prepare(values) {
      const keyId = required(values, 'key-id');
      const perMinute = parseLimit(required(values, 'per-minute'));
      return async ({ store }) => {
        if (!(await store.setKeyRateLimit(keyId, perMinute)))
          throw new DomainError('api_key_not_found', `No API key ${keyId}`);
        return { key_id: keyId, requests_per_minute: perMinute };
      };
    },
  },
  ...accountCommands,
  ...paymentCommands,
  'accounts delete': {
    usage: 'accounts delete --account ACCOUNT_ID',
    options: { account: { type: 'string' } },
    prepare(values) {
      const accountId = required(values, 'account');
      return async ({ store, credentials }) => {
        await accounts.deleteAccount(store, accountId);
        // Its sign-in goes with it: sessions end, and the address may sign up again.
        await credentials.deleteLogin(accountId);
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
      return async ({ store }) => {
        const account = await accounts.setDiscounts(store, accountId, { discountPercent, tierDiscounts });
        return {
          account_id: account.id,
          discount_percent: account.discountPercent,
          tier_discounts: account.tierDiscounts,
        };
      };
    },
  },
  'keys create': {
    usage: 'keys create --account ACCOUNT_ID [--name NAME]',
    options: { account: { type: 'string' }, name: { type: 'string' } },
    prepare(values) {
      const accountId = required(values, 'account');
      const name = typeof values.name === 'string' ? values.name : accounts.DEFAULT_KEY_NAME;
      return async ({ store }) => {
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
      return async ({ store }) => {
        // Revoking an already revoked key reports the original time (the store keeps the first one).
        const key = await accounts.revokeKey(store, null, keyId);
        return { key_id: key.id, revoked_at: new Date(key.revokedAtMs ?? Date.now()).toISOString() };
      };
    },
  },
  // SPEC 1.6: machines start unverified; an operator verifies them, and takes it back (deverified) after trouble.
  'machines verify': verification('verified'),
  'machines deverify': verification('deverified'),
};

function verification(state: 'verified' | 'deverified'): Command {
  return {
    usage: `machines ${state === 'verified' ? 'verify' : 'deverify'} --machine MACHINE_ID`,
    options: { machine: { type: 'string' } },
    prepare(values) {
      const machineId = required(values, 'machine');
      return async ({ market }) => {
        const machine = await setVerification(market, machineId, state);
        return { machine_id: machine.id, verification: machine.verification };
      };
    },
  };
}

const usageText = () =>
  `usage: npm run --silent admin -- <command> [--help]\n` +
  `Reads DATABASE_URL (default sqlite:data/gateway.sqlite) like the server; prints one JSON object.\n` +
  `commands:\n${Object.values(commands)
    .map((c) => `  ${c.usage}`)
    .join('\n')}`;

const HELP = new Set(['--help', '-h', 'help']);

/**
 * The usage asked for (`--help`, `-h` or `help` first, or `--help` after a command), or undefined: help goes to
 * stdout with exit 0, as CLIs do, and never touches the database. No arguments at all stays a usage error.
 */
function helpAsked(argv: string[]): string | undefined {
  if (argv[0] !== undefined && HELP.has(argv[0])) return usageText();
  if (!argv.some((arg) => arg === '--help' || arg === '-h')) return undefined;
  const { command } = commandOf(argv);
  return command === undefined ? usageText() : `usage: npm run --silent admin -- ${command.usage}`;
}

/** Commands are one word (`topup`), two (`keys create`) or three (`accounts sessions revoke`): the longest match. */
function commandOf(argv: string[]): { command: Command | undefined; words: number } {
  for (let words = 3; words >= 1; words -= 1) {
    const command = commands[argv.slice(0, words).join(' ')];
    if (command !== undefined) return { command, words };
  }
  return { command: undefined, words: 0 };
}

/** Picks the command from the first words and parses the rest strictly against that command's options. */
function parseCommand(argv: string[]): (stores: Stores) => Promise<Output> {
  const { command, words } = commandOf(argv);
  if (!command) throw new UsageError(`unknown command ${JSON.stringify(argv.slice(0, 2).join(' '))}\n${usageText()}`);
  try {
    const { values } = parseArgs({
      args: argv.slice(words),
      options: command.options,
      strict: true,
      allowPositionals: false,
    });
    return command.prepare(values);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${err instanceof Error ? err.message : String(err)}\nusage: admin ${command.usage}`);
  }
}

async function withStore<T>(run: (stores: Stores) => Promise<T>): Promise<T> {
  const config = loadConfig();
  const db: Database = connectDatabase(config.DATABASE_URL);
  try {
    await migrateToLatest(db);
    const ledger = openLedger(db);
    const market = new SqlMarketStore(db);
    const marketRateMicro = fxRateToMicro(config.MARKET_FX_RATE_RUB);
    const billing = buildRentalBilling(market, ledger, Date.now, config, marketRateMicro, (err) => {
      throw err;
    });
    const settleRentals = async (accountId: string) => {
      await billing.rentals.settleAccount(accountId);
      await billing.volumes.settleAccount(accountId);
    };
    const store = new SqlApiKeyStore(db);
    const logger = pino({ level: 'silent' });
    const payments = await buildPayments({
      db,
      config,
      ledger,
      keys: { apiKeys: store },
      now: Date.now,
      logger,
      marketFxRateRubMicro: marketRateMicro,
    });
    return await run({
      store,
      payments,
      withdrawals: { withdrawals: new SqlWithdrawalStore(db), ledger, now: Date.now },
      credentials: new SqlCredentialStore(db),
      ledger,
      market,
      marketRateMicro,
      settleRentals,
    });
  } finally {
    await db.knex.destroy();
  }
}

function fail(exitCode: number, error: string, message: string): void {
  process.stderr.write(`${JSON.stringify({ error, message })}\n`);
  process.exitCode = exitCode;
}

async function main(argv: string[]): Promise<void> {
  const help = helpAsked(argv);
  if (help !== undefined) {
    process.stdout.write(`${help}\n`);
    return;
  }
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

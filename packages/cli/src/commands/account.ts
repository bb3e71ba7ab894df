/**
 * `login`, `logout` and `balance`: a key is checked against the account (getAccount) before it is saved, so a
 * typo is caught at login rather than at the first paid call (SPEC 5.1 keys).
 */
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { ComputeGateway, defaultBaseUrl, getAccount } from '@compute-gateway/sdk';
import type { Command } from 'commander';
import { readConfig, removeProfile, saveProfile } from '../config.js';
import { context, globals } from '../context.js';
import { UsageError } from '../errors.js';
import { readStdin } from '../input.js';
import { printJson, printLine, printRecord, usd } from '../output.js';

/** A prompt that does not echo what is typed, so the key never shows on screen or in scrollback. */
function askHidden(question: string): Promise<string> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() });
  process.stderr.write(question);
  const rl = createInterface({ input: process.stdin, output: muted, terminal: true });
  return new Promise((resolve) => {
    rl.question('', (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    });
  });
}

async function keyFrom(option: string | undefined): Promise<string> {
  if (option !== undefined) return option.trim();
  if (process.stdin.isTTY !== true) return (await readStdin()).trim();
  return (await askHidden('API key (cgw_...): ')).trim();
}

async function login(options: { key?: string }, command: Command): Promise<void> {
  const global = globals(command);
  const profile = global.profile ?? process.env['CGW_PROFILE'] ?? 'default';
  const stored = (await readConfig()).profiles[profile];
  const baseUrl = global.baseUrl ?? process.env['CGW_BASE_URL'] ?? stored?.base_url ?? defaultBaseUrl();
  const apiKey = await keyFrom(options.key);
  if (apiKey === '') throw new UsageError('no API key given (--key, stdin or the prompt)');
  const account = (await new ComputeGateway({ baseUrl, apiKey }).call(getAccount)).data;
  const path = await saveProfile(profile, { base_url: baseUrl, api_key: apiKey });
  if (global.json === true) {
    printJson({ profile, base_url: baseUrl, account_id: account.account_id, email: account.email, config: path });
    return;
  }
  printLine(`Logged in as ${account.email} (${account.account_id}), profile "${profile}" at ${baseUrl}`);
  printLine(`Key saved to ${path} (mode 0600); balance ${usd(account.balance_usd)}`);
}

async function logout(_options: unknown, command: Command): Promise<void> {
  const global = globals(command);
  const profile = global.profile ?? process.env['CGW_PROFILE'] ?? 'default';
  const removed = await removeProfile(profile);
  if (global.json === true) printJson({ profile, removed });
  else printLine(removed ? `Profile "${profile}" removed` : `No profile "${profile}"`);
}

async function balance(_options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const account = (await ctx.gateway.call(getAccount)).data;
  const fields = {
    balance_usd: account.balance_usd,
    held_usd: account.held_usd,
    available_usd: Math.round((account.balance_usd - account.held_usd) * 1e6) / 1e6,
    rub_billing: account.rub_billing,
    balance_rub: account.balance_rub,
  };
  if (ctx.json) return printJson(fields);
  printRecord([
    ['account', `${account.email} (${account.account_id})`],
    ['balance', usd(fields.balance_usd)],
    ['held by calls in flight', usd(fields.held_usd)],
    ['available', usd(fields.available_usd)],
    ...(account.rub_billing ? ([['balance (RUB)', account.balance_rub]] as Array<[string, number | null]>) : []),
  ]);
}

export function registerAccount(root: Command): void {
  root
    .command('login')
    .description('check an API key against the account and save it for this profile (0600, XDG config dir)')
    .option('--key <key>', 'the API key (else read from stdin when piped, else asked for without echo)')
    .action(login);
  root.command('logout').description('remove the selected profile and its key from the config file').action(logout);
  root
    .command('balance')
    .description('the account balance, what calls in flight hold, and what is left')
    .action(balance);
}

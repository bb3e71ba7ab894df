/**
 * `keys list|create|revoke` (SPEC 5.1): the account's API keys. A new key's secret is shown once, at creation; the
 * service keeps only its hash, so it cannot be shown again.
 */
import { createApiKey, listApiKeys, revokeApiKey } from '@compute-gateway/sdk';
import type { Command } from 'commander';
import { context, numberOption } from '../context.js';
import { printJson, printLine, printRecord, printTable, usd, when } from '../output.js';

async function list(_options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { keys } = (await ctx.gateway.call(listApiKeys)).data;
  if (ctx.json) return printJson({ keys });
  printTable(
    ['id', 'name', 'key', 'status', 'created', 'last used', 'spend left'],
    keys.map((k) => [
      k.id,
      k.name,
      k.display_hint,
      k.status,
      when(k.created_at),
      when(k.last_used_at),
      k.spend_limit_remaining_usd === null ? '-' : usd(k.spend_limit_remaining_usd),
    ]),
    'no keys',
  );
}

async function create(options: { name?: string; rateLimit?: number }, command: Command): Promise<void> {
  const ctx = await context(command);
  const body = {
    ...(options.name === undefined ? {} : { name: options.name }),
    ...(options.rateLimit === undefined ? {} : { rate_limit_per_minute: options.rateLimit }),
  };
  const created = (await ctx.gateway.call(createApiKey, { body })).data;
  if (ctx.json) return printJson(created);
  printRecord([
    ['id', created.key.id],
    ['name', created.key.name],
    ['secret', created.api_key],
  ]);
  process.stderr.write('Store the secret now: it is shown only this once.\n');
}

async function revoke(id: string, _options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { key } = (await ctx.gateway.call(revokeApiKey, { path: { key_id: id } })).data;
  if (ctx.json) return printJson({ key });
  printLine(`Revoked ${key.id} (${key.name})`);
}

export function registerKeys(root: Command): void {
  const keys = root.command('keys').description('list, create and revoke API keys');
  keys.command('list', { isDefault: true }).description("list the account's keys").action(list);
  keys
    .command('create')
    .description('create a key and print its secret (shown once)')
    .option('--name <name>', 'a name to tell it apart')
    .option('--rate-limit <n>', 'requests per minute for this key', numberOption('--rate-limit'))
    .action(create);
  keys.command('revoke <id>').description('revoke a key; calls with it fail from now on').action(revoke);
}

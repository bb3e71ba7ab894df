/**
 * `usage`: the account's billed requests (listUsageRequests), newest first, or with `--csv` the export the
 * dashboard offers (exportUsage, UTC days), written to stdout as the service sends it.
 */
import { exportUsage, listUsageRequests } from '@compute-gateway/sdk';
import type { Command } from 'commander';
import { context, numberOption } from '../context.js';
import { printJson, printTable, usd, when } from '../output.js';

interface UsageOptions {
  since?: string;
  until?: string;
  model?: string;
  key?: string;
  limit: number;
  csv?: boolean;
}

/** The export takes whole UTC days; an RFC 3339 time given to `--since` is cut to its day. */
const day = (value: string | undefined) => value?.slice(0, 10);

async function usage(options: UsageOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  if (options.csv === true) {
    const query = {
      ...(options.since ? { from: day(options.since) } : {}),
      ...(options.until ? { to: day(options.until) } : {}),
      ...(options.key ? { key_id: options.key } : {}),
    };
    const csv = await ctx.gateway.call(exportUsage, { query, parseAs: 'text' });
    process.stdout.write(String(csv));
    return;
  }
  const query = {
    limit: options.limit,
    ...(options.since ? { since: options.since } : {}),
    ...(options.until ? { until: options.until } : {}),
    ...(options.model ? { model: options.model } : {}),
    ...(options.key ? { key_id: options.key } : {}),
  };
  const { data } = await ctx.gateway.call(listUsageRequests, { query });
  if (ctx.json) return printJson(data);
  printTable(
    ['time', 'model', 'kind', 'tokens in', 'tokens out', 'cost', 'request'],
    data.requests.map((r) => [
      when(r.created_at),
      r.model,
      r.kind,
      r.prompt_tokens,
      r.completion_tokens,
      usd(r.cost_usd),
      r.request_id,
    ]),
    'no billed requests in this range',
  );
}

export function registerUsage(root: Command): void {
  root
    .command('usage')
    .description('billed requests, newest first (or the CSV export with --csv)')
    .option('--since <time>', 'from this ISO date or RFC 3339 time')
    .option('--until <time>', 'up to this ISO date or RFC 3339 time')
    .option('--model <model>', 'only this model')
    .option('--key <key_id>', 'only calls made with this key')
    .option('--limit <n>', 'at most this many rows', numberOption('--limit'), 50)
    .option('--csv', 'write the CSV export (whole UTC days) to stdout')
    .action(usage);
}

/** `volumes list|create|delete`: persistent disks billed per GB-month while they exist, attachable to rentals. */
import { createVolume, deleteVolume, listVolumes, type Volume } from '@compute-gateway/sdk';
import type { Command } from 'commander';
import { context, numberOption } from '../context.js';
import { UsageError } from '../errors.js';
import { printJson, printRecord, printTable, usd, when } from '../output.js';

function printVolume(volume: Volume): void {
  printRecord([
    ['volume', volume.volume_id],
    ['name', volume.name],
    ['size', `${volume.size_gb} GB`],
    ['status', volume.status],
    ['price', `${usd(volume.price_per_gb_month_usd)} per GB-month (${usd(volume.cost_per_hour_usd)} per hour)`],
    ['charged', usd(volume.charged_usd)],
    ['created', when(volume.created_at)],
  ]);
}

async function list(_options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(listVolumes);
  if (ctx.json) return printJson(data);
  printTable(
    ['volume', 'name', 'size', 'status', '$/hour', 'charged', 'created'],
    data.volumes.map((v) => [
      v.volume_id,
      v.name,
      `${v.size_gb} GB`,
      v.status,
      usd(v.cost_per_hour_usd),
      usd(v.charged_usd),
      when(v.created_at),
    ]),
    'no volumes',
  );
}

async function create(options: { size: number; name?: string }, command: Command): Promise<void> {
  const ctx = await context(command);
  const body = { size_gb: options.size, ...(options.name ? { name: options.name } : {}) };
  const { data } = await ctx.gateway.call(createVolume, { body });
  if (ctx.json) return printJson(data);
  printVolume(data);
}

async function remove(id: string, _options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const volumeId = Number(id);
  if (!Number.isInteger(volumeId)) throw new UsageError(`a volume id is a number, got "${id}"`);
  const { data } = await ctx.gateway.call(deleteVolume, { path: { volume_id: volumeId } });
  if (ctx.json) return printJson(data);
  printVolume(data);
}

export function registerVolumes(root: Command): void {
  const volumes = root.command('volumes').description('persistent volumes: list, create, delete');
  volumes.command('list', { isDefault: true }).description('list volumes').action(list);
  volumes
    .command('create')
    .description('create a volume')
    .requiredOption('--size <gb>', 'size in GB', numberOption('--size'))
    .option('--name <name>', 'a name to tell it apart')
    .action(create);
  volumes.command('delete <id>').description('delete a volume and its data').action(remove);
}

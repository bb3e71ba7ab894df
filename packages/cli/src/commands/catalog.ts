/**
 * `models`: the model catalog (SPEC 2.1 listing, prices at list and at the caller's discount). The catalog is public,
 * so it works before `cgw login`; with a key it shows the caller's own prices.
 */
import { type CatalogEntry, getModelCatalog } from '@compute-gateway/sdk';
import { type Command, Option } from 'commander';
import { context } from '../context.js';
import { printJson, printTable, usd } from '../output.js';

const KINDS = ['text', 'image', 'video', 'music', 'audio', 'embedding', 'rerank'] as const;

/** The price a person compares: per million tokens for text, per image or unit otherwise. */
function price(entry: CatalogEntry): string {
  if (entry.retail_input_usd_per_mtok !== null || entry.retail_output_usd_per_mtok !== null) {
    return `${usd(entry.retail_input_usd_per_mtok)} in / ${usd(entry.retail_output_usd_per_mtok)} out per Mtok`;
  }
  if (entry.retail_usd_per_image !== null) return `${usd(entry.retail_usd_per_image)} per image`;
  if (entry.retail_usd_per_unit !== null) {
    const unit = entry.video_billing_unit ?? entry.audio_billing_unit ?? 'unit';
    return `${usd(entry.retail_usd_per_unit)} per ${unit}`;
  }
  return '-';
}

async function models(options: { kind?: string; search?: string }, command: Command): Promise<void> {
  const ctx = await context(command, false);
  const catalog = (await ctx.gateway.call(getModelCatalog)).data;
  const needle = options.search?.toLowerCase();
  const shown = catalog.models.filter(
    (m) =>
      (options.kind === undefined || m.media_kind === options.kind) &&
      (needle === undefined || `${m.slug} ${m.label} ${m.provider}`.toLowerCase().includes(needle)),
  );
  if (ctx.json) return printJson({ ...catalog, models: shown });
  printTable(
    ['model', 'kind', 'provider', 'price (list)', 'your discount'],
    shown.map((m) => [
      m.slug === catalog.default_model ? `${m.slug} (default)` : m.slug,
      m.media_kind,
      m.provider,
      price(m),
      m.user_discount_percent > 0 ? `${m.user_discount_percent}%` : '-',
    ]),
    'no model matches',
  );
}

export function registerCatalog(root: Command): void {
  root
    .command('models')
    .description('list the models you can call, with their list prices')
    .addOption(new Option('--kind <kind>', 'only models of this kind').choices(KINDS))
    .option('--search <text>', 'only models whose name, label or provider contains this')
    .action(models);
}

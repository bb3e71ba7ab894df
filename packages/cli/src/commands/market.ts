/**
 * The GPU marketplace (SPEC 1.x rentals): `offers` with the listing's filters as flags, `rent` an offer, and
 * `instances` to see and drive what was rented. An instance is billed while it runs; `stop` ends the billing of
 * compute, `delete` ends the rental.
 */
import {
  createInstance,
  deleteInstance,
  getInstance,
  type Instance,
  type InstanceRequest,
  listInstances,
  listOffers,
  type PricingType,
  startInstance,
  stopInstance,
} from '@compute-gateway/sdk';
import { type Command, Option } from 'commander';
import { context, numberOption } from '../context.js';
import { printJson, printRecord, printTable, usd, when } from '../output.js';
import { defined } from './media.js';

const PRICING = ['minute', 'hour', 'day', 'week', 'month'];
const collect = (value: string, previous: string[] = []) => [...previous, value];

interface OfferOptions {
  gpu?: string[];
  minVram?: number;
  maxPrice?: number;
  location?: string[];
  verified?: boolean;
  minGpus?: number;
  sort?: string;
  limit?: number;
  offset?: number;
}

async function offers(options: OfferOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  const query = defined({
    gpu_model: options.gpu,
    min_vram_gb: options.minVram,
    max_price_per_hour: options.maxPrice,
    location: options.location,
    verified: options.verified,
    min_gpus: options.minGpus,
    sort: options.sort as 'price' | undefined,
    limit: options.limit,
    offset: options.offset,
  });
  const { data } = await ctx.gateway.call(listOffers, { query });
  if (ctx.json) return printJson(data);
  printTable(
    ['offer', 'gpu', 'free/total', 'vram', 'cpu/ram', 'location', 'verified', 'reliability', '$/gpu/h'],
    data.offers.map((o) => [
      o.offer_id,
      o.gpu_name,
      `${o.free_gpus}/${o.gpu_count}`,
      `${o.vram_gb} GB`,
      `${o.cpu_cores} / ${o.ram_gb} GB`,
      o.location,
      o.verification,
      o.reliability,
      usd(o.price_per_gpu_hour_usd),
    ]),
    'no offer matches',
  );
}

export function printInstance(instance: Instance): void {
  printRecord([
    ['instance', instance.task_id],
    ['offer', instance.offer_id],
    ['gpus', `${instance.gpu_count} x ${instance.gpu_name}`],
    ['image', instance.docker_image],
    ['status', `${instance.status} (wanted: ${instance.desired_status})`],
    ['reason', instance.status_reason],
    ['price', `${usd(instance.unit_price_usd)} per ${instance.pricing_type}`],
    ['charged', usd(instance.charged_usd)],
    ['ssh', instance.ssh_port === null ? null : `${instance.ssh_host}:${instance.ssh_port}`],
    ['created', when(instance.created_at)],
  ]);
}

interface RentOptions {
  image: string;
  gpus?: number;
  disk?: number;
  pricing?: PricingType;
  maxPrice?: number;
  volume?: number;
}

async function rent(offerId: string, options: RentOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  const body: InstanceRequest = defined({
    offer_id: offerId,
    docker_image: options.image,
    gpu_count: options.gpus,
    disk_gb: options.disk,
    pricing_type: options.pricing,
    max_price_per_gpu_hour: options.maxPrice,
    volume_id: options.volume,
  });
  const { data } = await ctx.gateway.call(createInstance, { body });
  if (ctx.json) return printJson(data);
  printInstance(data);
}

async function list(_options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(listInstances);
  if (ctx.json) return printJson(data);
  printTable(
    ['instance', 'gpus', 'image', 'status', 'charged', 'ssh'],
    data.instances.map((i) => [
      i.task_id,
      `${i.gpu_count} x ${i.gpu_name}`,
      i.docker_image,
      i.status,
      usd(i.charged_usd),
      i.ssh_port === null ? null : `${i.ssh_host}:${i.ssh_port}`,
    ]),
    'no instances',
  );
}

/** show, start, stop and delete: one call on one instance, answered with the instance. */
function onInstance(op: typeof getInstance | typeof startInstance | typeof stopInstance | typeof deleteInstance) {
  return async (id: string, _options: unknown, command: Command) => {
    const ctx = await context(command);
    const { data } = await ctx.gateway.call(op as typeof getInstance, { path: { task_id: id } });
    if (ctx.json) return printJson(data);
    printInstance(data);
  };
}

export function registerMarket(root: Command): void {
  root
    .command('offers')
    .description('GPU offers on the marketplace, filtered and sorted')
    .option('--gpu <model>', 'GPU model, e.g. RTX_4090 (repeat for several)', collect)
    .option('--min-vram <gb>', 'at least this much VRAM per GPU', numberOption('--min-vram'))
    .option('--max-price <usd>', 'at most this price per GPU hour', numberOption('--max-price'))
    .option('--location <code>', 'country code (repeat for several)', collect)
    .option('--verified', 'verified machines only')
    .option('--min-gpus <n>', 'at least this many free GPUs', numberOption('--min-gpus'))
    .addOption(
      new Option('--sort <order>', 'sort order').choices([
        'price',
        '-price',
        'vram',
        '-vram',
        'reliability',
        '-reliability',
      ]),
    )
    .option('--limit <n>', 'at most this many', numberOption('--limit'))
    .option('--offset <n>', 'skip this many', numberOption('--offset'))
    .action(offers);
  root
    .command('rent <offer_id>')
    .description('rent GPUs from an offer: starts an instance running your Docker image')
    .requiredOption('--image <docker_image>', 'the Docker image to run')
    .option('--gpus <n>', "how many of the offer's GPUs", numberOption('--gpus'))
    .option('--disk <gb>', 'disk size', numberOption('--disk'))
    .addOption(new Option('--pricing <unit>', 'billing period').choices(PRICING))
    .option('--max-price <usd>', 'refuse if the price per GPU hour is above this', numberOption('--max-price'))
    .option('--volume <id>', 'attach this volume', numberOption('--volume'))
    .action(rent);
  const instances = root.command('instances').description('your rented instances: list, show, start, stop, delete');
  instances.command('list', { isDefault: true }).description('list instances').action(list);
  instances.command('show <id>').description('one instance in full').action(onInstance(getInstance));
  instances.command('start <id>').description('start a stopped instance').action(onInstance(startInstance));
  instances.command('stop <id>').description('stop an instance (its disk is kept)').action(onInstance(stopInstance));
  instances
    .command('delete <id>')
    .description('end the rental and remove the instance')
    .action(onInstance(deleteInstance));
}

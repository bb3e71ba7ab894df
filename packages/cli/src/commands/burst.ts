/**
 * `burst`: orders for many GPUs at once, placed across offers up to a price (SPEC 1.x burst orders). `estimate`
 * shows the plan and its hourly price before anything is rented.
 */
import {
  type BurstEstimateRequest,
  type BurstOrder,
  createBurstOrder,
  deleteBurstOrder,
  estimateBurstOrder,
  getBurstOrder,
  listBurstOrders,
  type PricingType,
  startBurstOrder,
  stopBurstOrder,
} from '@compute-gateway/sdk';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { context, numberOption } from '../context.js';
import { printJson, printLine, printRecord, printTable, usd, when } from '../output.js';
import { defined } from './media.js';

interface OrderOptions {
  image: string;
  gpu: string;
  gpus: number;
  maxPrice?: number;
  extra?: Array<{ gpu_name: string; max_price: number }>;
  disk?: number;
  pricing?: PricingType;
  volume?: number;
  allOrNothing?: boolean;
}

/** `--extra A100:1.2`: another GPU model the order may use, at most this price per GPU hour. */
function extraGpu(value: string, previous: OrderOptions['extra'] = []) {
  const [name, price] = value.split(':');
  if (!name || price === undefined || !Number.isFinite(Number(price))) {
    throw new InvalidArgumentError(`--extra takes <gpu>:<max price>, got "${value}"`);
  }
  return [...previous, { gpu_name: name, max_price: Number(price) }];
}

const request = (o: OrderOptions): BurstEstimateRequest =>
  defined({
    docker_image: o.image,
    primary_gpu: o.gpu,
    gpu_count: o.gpus,
    primary_max_price: o.maxPrice,
    extra_gpus: o.extra,
    disk_gb: o.disk,
    pricing_type: o.pricing,
    volume_id: o.volume,
  });

function printOrder(order: BurstOrder): void {
  printRecord([
    ['order', order.order_id],
    ['status', `${order.status} (wanted: ${order.desired_status})`],
    ['gpus', `${order.placed_gpus}/${order.gpu_count} placed, primary ${order.primary_gpu}`],
    ['image', order.docker_image],
    ['instances', order.instances.map((i) => `${i.task_id} (${i.status})`).join(', ') || '-'],
    ['created', when(order.created_at)],
  ]);
}

async function estimate(options: OrderOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(estimateBurstOrder, { body: request(options) });
  if (ctx.json) return printJson(data);
  printTable(
    ['offer', 'gpu', 'gpus', 'location', '$/gpu/h'],
    data.slots.map((s) => [s.offer_id, s.gpu_name, s.gpus, s.location, usd(s.price_per_gpu_hour_usd)]),
    'no offer fits',
  );
  printLine(
    `${data.planned_gpus}/${data.gpu_count} GPUs planned (short ${data.shortfall}), ${usd(data.per_hour_usd)} per hour`,
  );
}

async function create(options: OrderOptions, command: Command): Promise<void> {
  const ctx = await context(command);
  const body = { ...request(options), ...(options.allOrNothing ? { all_or_nothing: true } : {}) };
  const { data } = await ctx.gateway.call(createBurstOrder, { body });
  if (ctx.json) return printJson(data);
  printOrder(data);
}

async function list(_options: unknown, command: Command): Promise<void> {
  const ctx = await context(command);
  const { data } = await ctx.gateway.call(listBurstOrders);
  if (ctx.json) return printJson(data);
  printTable(
    ['order', 'status', 'gpus placed', 'primary gpu', 'image', 'created'],
    data.orders.map((o) => [
      o.order_id,
      o.status,
      `${o.placed_gpus}/${o.gpu_count}`,
      o.primary_gpu,
      o.docker_image,
      when(o.created_at),
    ]),
    'no burst orders',
  );
}

function onOrder(op: typeof getBurstOrder | typeof startBurstOrder | typeof stopBurstOrder | typeof deleteBurstOrder) {
  return async (id: string, _options: unknown, command: Command) => {
    const ctx = await context(command);
    const { data } = await ctx.gateway.call(op as typeof getBurstOrder, { path: { order_id: id } });
    if (ctx.json) return printJson(data);
    printOrder(data);
  };
}

function orderFlags(command: Command): Command {
  return command
    .requiredOption('--image <docker_image>', 'the Docker image every instance runs')
    .requiredOption('--gpu <model>', 'the GPU model to place first, e.g. RTX_4090')
    .requiredOption('--gpus <n>', 'how many GPUs in all', numberOption('--gpus'))
    .option('--max-price <usd>', 'at most this per GPU hour for the primary GPU', numberOption('--max-price'))
    .option('--extra <gpu:price>', 'another GPU model allowed, at most this price (repeatable)', extraGpu)
    .option('--disk <gb>', 'disk per instance', numberOption('--disk'))
    .addOption(new Option('--pricing <unit>', 'billing period').choices(['minute', 'hour', 'day', 'week', 'month']))
    .option('--volume <id>', 'attach this volume', numberOption('--volume'));
}

export function registerBurst(root: Command): void {
  const burst = root
    .command('burst')
    .description('burst orders: many GPUs across offers (list, estimate, create, ...)');
  burst.command('list', { isDefault: true }).description('list burst orders').action(list);
  orderFlags(burst.command('estimate').description('plan an order and price it; nothing is rented')).action(estimate);
  orderFlags(burst.command('create').description('place an order'))
    .option('--all-or-nothing', 'rent nothing unless every GPU can be placed')
    .action(create);
  burst.command('show <id>').description('one order and its instances').action(onOrder(getBurstOrder));
  burst.command('start <id>').description('start a stopped order').action(onOrder(startBurstOrder));
  burst.command('stop <id>').description('stop every instance of an order').action(onOrder(stopBurstOrder));
  burst.command('delete <id>').description('end the order and its rentals').action(onOrder(deleteBurstOrder));
}

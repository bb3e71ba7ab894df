import type { components } from '../../../generated/openapi.js';
import type { InstanceRecord } from '../../adapters/market-store/index.js';
import type { Deps } from '../../composition/index.js';
import { microsToUsd, usdToMicros } from '../../domain/billing/money.js';
import { DEFAULT_DISK_GB } from '../../domain/limits.js';
import type { BurstRequest } from '../../domain/market/burst-orders.js';
import { checkImage } from '../../domain/market/image-check.js';
import { DEFAULT_PRICING_TYPE } from '../../domain/market/plans.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { burstEstimateView, burstOrderView } from '../views/market-views.js';
import { sshHost } from './instances.js';

type WireOrder = components['schemas']['BurstOrderRequest'];

/** SPEC 2.10 in the domain's units: the primary type, then each fallback with its cap. */
function burstRequest(body: WireOrder): BurstRequest {
  return {
    dockerImage: body.docker_image,
    tiers: [
      {
        gpuName: body.primary_gpu,
        maxPricePerGpuHourMicros: body.primary_max_price === undefined ? null : usdToMicros(body.primary_max_price),
      },
      ...(body.extra_gpus ?? []).map((e) => ({
        gpuName: e.gpu_name,
        maxPricePerGpuHourMicros: usdToMicros(e.max_price),
      })),
    ],
    gpuCount: body.gpu_count,
    diskGb: body.disk_gb ?? DEFAULT_DISK_GB,
    pricingType: body.pricing_type ?? DEFAULT_PRICING_TYPE,
    allOrNothing: body.all_or_nothing ?? true,
    volumeId: body.volume_id ?? null,
  };
}

/** Each rental's SSH port taken or given back as its desired status now says (docs/marketplace.md "SSH"). */
async function fitPorts(deps: Deps, instances: InstanceRecord[]): Promise<InstanceRecord[]> {
  const fitted = [];
  for (const instance of instances) fitted.push(await deps.market.sshProxy.fit(instance));
  return fitted;
}

export const createBurstOrder: Handler<'createBurstOrder'> = async ({ deps, principal, body }) => {
  const { order, instances } = await deps.market.bursts.create(requirePrincipal(principal), burstRequest(body!));
  return {
    status: 201,
    body: nativeOk(burstOrderView(order, await fitPorts(deps, instances), deps.now(), sshHost(deps))),
  };
};

export const estimateBurstOrder: Handler<'estimateBurstOrder'> = async ({ deps, principal, body }) => {
  const request = burstRequest({ ...body!, extra_gpus: body!.extra_gpus ?? [] });
  return {
    status: 200,
    body: nativeOk(
      burstEstimateView(
        await deps.market.bursts.estimate(requirePrincipal(principal), request),
        request.gpuCount,
        request.pricingType,
      ),
    ),
  };
};

export const listBurstOrders: Handler<'listBurstOrders'> = async ({ deps, principal, query }) => {
  const found = await deps.market.bursts.list(requirePrincipal(principal), query.limit ?? 50, query.offset ?? 0);
  const now = deps.now();
  return {
    status: 200,
    body: nativeOk({
      orders: found.map(({ order, instances }) => burstOrderView(order, instances, now, sshHost(deps))),
    }),
  };
};

export const getBurstOrder: Handler<'getBurstOrder'> = async ({ deps, principal, params }) => {
  const { order, instances } = await deps.market.bursts.get(requirePrincipal(principal), params.order_id);
  return { status: 200, body: nativeOk(burstOrderView(order, instances, deps.now(), sshHost(deps))) };
};

const fanOut =
  (action: 'start' | 'stop' | 'remove'): Handler<'startBurstOrder' | 'stopBurstOrder' | 'deleteBurstOrder'> =>
  async ({ deps, principal, params }) => {
    const { order, instances, failures } = await deps.market.bursts.fanOut(
      requirePrincipal(principal),
      params.order_id,
      action,
    );
    return {
      status: 200,
      body: nativeOk(burstOrderView(order, await fitPorts(deps, instances), deps.now(), sshHost(deps), failures)),
    };
  };

export const startBurstOrder: Handler<'startBurstOrder'> = fanOut('start');
export const stopBurstOrder: Handler<'stopBurstOrder'> = fanOut('stop');
export const deleteBurstOrder: Handler<'deleteBurstOrder'> = fanOut('remove');

export const listBurstOrderTransactions: Handler<'listBurstOrderTransactions'> = async ({
  deps,
  principal,
  params,
  query,
}) => {
  const found = await deps.market.bursts.transactions(requirePrincipal(principal), params.order_id, query.limit ?? 50);
  return {
    status: 200,
    body: nativeOk({
      transactions: found.map((t) => ({
        transaction_id: `rental:${t.instanceId}:${t.seq}`,
        task_id: t.instanceId,
        amount_usd: microsToUsd(t.chargedMicros),
        created_at: t.atMs,
      })),
    }),
  };
};

export const listBurstOrderHistory: Handler<'listBurstOrderHistory'> = async ({ deps, principal, params, query }) => {
  const events = await deps.market.bursts.history(requirePrincipal(principal), params.order_id, query.limit ?? 50);
  return {
    status: 200,
    body: nativeOk({
      events: events.map((e) => ({
        task_id: e.instanceId,
        at: e.atMs,
        status: e.status,
        desired_status: e.desiredStatus,
        reason: e.reason,
      })),
    }),
  };
};

export const checkBurstImage: Handler<'checkBurstImage'> = async ({ deps, principal, body }) => {
  requirePrincipal(principal);
  const check = await checkImage(deps.market.registry, body!.docker_image, body!.disk_gb ?? DEFAULT_DISK_GB);
  return {
    status: 200,
    body: nativeOk({
      docker_image: check.image.reference,
      digest: check.image.digest,
      layers: check.image.layers,
      compressed_bytes: check.image.compressedBytes,
      estimated_disk_gb: check.estimatedDiskGb,
      disk_gb: check.diskGb,
      fits: check.fits,
    }),
  };
};

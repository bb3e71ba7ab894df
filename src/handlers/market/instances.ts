import type { Deps } from '../../composition/index.js';
import { usdToMicros } from '../../domain/billing/money.js';
import { DEFAULT_DISK_GB } from '../../domain/limits.js';
import { DEFAULT_PRICING_TYPE } from '../../domain/market/plans.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { instanceView } from '../views/market-views.js';

/** The SSH proxy's name, shown with each rental's port. */
export const sshHost = (deps: Deps): string => deps.market.sshProxy.settings.publicHost;

export const createInstance: Handler<'createInstance'> = async ({ deps, principal, body }) => {
  const input = body!;
  const instance = await deps.market.rentals.create(requirePrincipal(principal), {
    offerId: input.offer_id,
    pricingType: input.pricing_type ?? DEFAULT_PRICING_TYPE,
    ...(input.gpu_count === undefined ? {} : { gpuCount: input.gpu_count }),
    dockerImage: input.docker_image,
    diskGb: input.disk_gb ?? DEFAULT_DISK_GB,
    ...(input.volume_id === undefined ? {} : { volumeId: input.volume_id }),
    ...(input.max_price_per_gpu_hour === undefined
      ? {}
      : { maxPricePerGpuHourMicros: usdToMicros(input.max_price_per_gpu_hour) }),
  });
  return {
    status: 201,
    body: nativeOk(instanceView(await deps.market.sshProxy.fit(instance), deps.now(), sshHost(deps))),
  };
};

export const listInstances: Handler<'listInstances'> = async ({ deps, principal, query }) => {
  const billed = await deps.market.rentals.list(requirePrincipal(principal), query.limit ?? 50, query.offset ?? 0);
  return {
    status: 200,
    body: nativeOk({
      instances: billed.map(({ instance, untilMs }) => instanceView(instance, untilMs, sshHost(deps))),
    }),
  };
};

export const getInstance: Handler<'getInstance'> = async ({ deps, principal, params }) => {
  const { instance, untilMs } = await deps.market.rentals.get(requirePrincipal(principal), params.task_id);
  return {
    status: 200,
    body: nativeOk(instanceView(instance, untilMs, sshHost(deps), await deps.market.rentals.history(instance.id))),
  };
};

/** Start, stop and delete answer the rental with its SSH port taken again or given back (docs/marketplace.md "SSH"). */
const control =
  (action: 'start' | 'stop' | 'remove'): Handler<'startInstance' | 'stopInstance' | 'deleteInstance'> =>
  async ({ deps, principal, params }) => {
    const instance = await deps.market.rentals[action](requirePrincipal(principal), params.task_id);
    return {
      status: 200,
      body: nativeOk(instanceView(await deps.market.sshProxy.fit(instance), deps.now(), sshHost(deps))),
    };
  };

export const startInstance: Handler<'startInstance'> = control('start');
export const stopInstance: Handler<'stopInstance'> = control('stop');
export const deleteInstance: Handler<'deleteInstance'> = control('remove');

export const ensureSshProxy: Handler<'ensureSshProxy'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk(
    instanceView(await deps.market.sshProxy.ensure(requirePrincipal(principal), params.id), deps.now(), sshHost(deps)),
  ),
});

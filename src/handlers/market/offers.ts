import { usdToMicros } from '../../domain/billing/money.js';
import { searchOffers } from '../../domain/market/offers.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { offerView } from '../views/market-views.js';

export const listOffers: Handler<'listOffers'> = async ({ deps, principal, query }) => {
  const { accountId } = requirePrincipal(principal);
  const balance = await deps.billing.read(accountId, () => deps.ledger.getBalance(accountId));
  const found = await searchOffers(
    deps.market.store,
    {
      ...(query.gpu_model === undefined ? {} : { gpuNames: query.gpu_model }),
      ...(query.min_vram_gb === undefined ? {} : { minVramGb: query.min_vram_gb }),
      ...(query.max_price_per_hour === undefined
        ? {}
        : { maxPricePerGpuHourMicros: usdToMicros(query.max_price_per_hour) }),
      ...(query.location === undefined ? {} : { locations: query.location }),
      verifiedOnly: query.verified ?? false,
      minFreeGpus: query.min_gpus ?? 1,
      sort: query.sort ?? 'price',
      limit: query.limit ?? 50,
      offset: query.offset ?? 0,
    },
    deps.now(),
    deps.config.MACHINE_OFFLINE_MS,
  );
  return {
    status: 200,
    body: nativeOk({ offers: found.offers.map((o) => offerView(o, balance.availableMicros)), total: found.total }),
  };
};

import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { volumeView } from '../views/market-views.js';

export const createVolume: Handler<'createVolume'> = async ({ deps, principal, body }) => {
  const volume = await deps.market.volumes.create(requirePrincipal(principal), {
    name: body!.name ?? 'volume',
    sizeGb: body!.size_gb,
  });
  return { status: 201, body: nativeOk(volumeView(volume)) };
};

export const listVolumes: Handler<'listVolumes'> = async ({ deps, principal, query }) => {
  const volumes = await deps.market.volumes.list(requirePrincipal(principal), query.limit ?? 50, query.offset ?? 0);
  return { status: 200, body: nativeOk({ volumes: volumes.map(volumeView) }) };
};

export const getVolume: Handler<'getVolume'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk(volumeView(await deps.market.volumes.get(requirePrincipal(principal), params.volume_id))),
});

export const deleteVolume: Handler<'deleteVolume'> = async ({ deps, principal, params }) => ({
  status: 200,
  body: nativeOk(volumeView(await deps.market.volumes.remove(requirePrincipal(principal), params.volume_id))),
});

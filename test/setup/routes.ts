import type { UpstreamProvider } from '../../src/adapters/upstream/index.js';
import type { Route } from '../../src/domain/routing/route-table.js';

/** A route whose provider does nothing by itself: chain and billing tests give each attempt its own outcome. */
export function stubRoute(name: string): Route {
  const provider: UpstreamProvider = { name, streams: true };
  return {
    provider,
    providerName: name,
    upstreamModel: `${name}-model`,
    wholesale: { inputUsdPerMtok: 0, outputUsdPerMtok: 0 },
    cachedInputDiscount: false,
  };
}

import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';

/** SPEC 2.5: public; with a key, the prices are the caller's own; measured throughput replaces estimates. */
export const getModelCatalog: Handler<'getModelCatalog'> = ({ deps, principal }) => {
  const measured = new Set(deps.throughput.measuredSlugs());
  const tokensPerSec =
    measured.size === 0
      ? undefined
      : (slug: string) => (measured.has(slug) ? deps.throughput.stats(slug).tokensPerSec : null);
  return { status: 200, body: nativeOk(deps.catalog.view(principal?.account ?? null, tokensPerSec)) };
};

import type { Handler } from '../../http/operation-types.js';
import { nativeOk } from '../../http/native-ok.js';

/** SPEC 2.5: public; with a key, the prices are the caller's own. */
export const getModelCatalog: Handler<'getModelCatalog'> = ({ deps, principal }) => ({
  status: 200,
  body: nativeOk(deps.catalog.view(principal?.account ?? null)),
});

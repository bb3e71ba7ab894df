import express, { type Express } from 'express';
import type { Deps } from './composition/index.js';
import { handlers } from './handlers/index.js';
import { bindOperations } from './http/bind-operations.js';
import { cors } from './http/cors.js';
import { edgeBlock } from './http/edge-block.js';
import { errorHandler } from './http/error-handler.js';
import { modelIdPath } from './http/model-id-path.js';
import { ASSETS_PATH, referenceAssets } from './http/reference-page.js';
import { requestId } from './http/request-id.js';
import { unmatchedRoute } from './http/unmatched-route.js';

/** A hop count stays a number for express; anything else is its list of addresses, names and subnets. */
function trustProxyValue(setting: string): number | string {
  return /^\d+$/.test(setting) ? Number(setting) : setting;
}

/**
 * The contract's tags of the paid model calls, which arrive at request rate: a serving process builds their
 * validators before serving, so none of them waits for one. Every other path's is built on its first request
 * (tens of milliseconds, once): all 100 would hold some 6 MB of heap in each process (bench/README.md, "Memory").
 */
export const MODEL_CALL_TAGS: ReadonlySet<string> = new Set(['chat', 'retrieval']);

/**
 * Middleware order (DESIGN.md 1): edge block → request id → CORS → slashes inside a model id encoded → per
 * operation: auth → rate limit → body (capped) → request validation → handler → one error handler.
 *
 * `warmTags`: build the validators of the paths with an operation of these tags before serving (a serving process,
 * MODEL_CALL_TAGS); the rest, and all of them in tests (which start many servers and call few paths), on first use.
 */
export function createApp(deps: Deps, options: { warmTags: ReadonlySet<string> } = { warmTags: new Set() }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'extended');
  // req.ip: the peer, or the client a trusted proxy names in X-Forwarded-For (docs/configuration.md).
  if (deps.config.TRUSTED_PROXY !== undefined) app.set('trust proxy', trustProxyValue(deps.config.TRUSTED_PROXY));
  app.use(edgeBlock, requestId, cors, modelIdPath);
  // The reference page's files (DESIGN.md 12): static, outside the contract, public (src/http/reference-page.ts).
  app.get(`${ASSETS_PATH}/:name`, referenceAssets);
  const routes = bindOperations(app, deps.contract, handlers, deps, options);
  app.use(unmatchedRoute(routes));
  app.use(errorHandler(deps.logger));
  return app;
}

import { assertMetricsAccess } from '../../http/metrics-access.js';
import type { Handler } from '../../http/operation-types.js';

export const getMetrics: Handler<'getMetrics'> = async ({ deps, req }) => {
  assertMetricsAccess(req, deps.config.METRICS_TOKEN);
  return { status: 200, contentType: deps.metrics.contentType, body: await deps.metrics.metrics() };
};

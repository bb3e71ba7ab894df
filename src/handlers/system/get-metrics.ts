import type { Handler } from '../../http/operation-types.js';

export const getMetrics: Handler<'getMetrics'> = async ({ deps }) => ({
  status: 200,
  contentType: deps.metrics.contentType,
  body: await deps.metrics.metrics(),
});

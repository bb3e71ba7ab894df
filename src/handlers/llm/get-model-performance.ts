import { ApiError } from '../../errors/api-error.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';

/** Measured throughput from this process's streamed traffic; the catalog estimate until measured. */
export const getModelPerformance: Handler<'getModelPerformance'> = ({ deps, params }) => {
  const entry = deps.catalog.find(params.slug);
  if (entry === undefined)
    throw new ApiError('model_not_found', `No model ${params.slug} in the catalog`, { meta: { slug: params.slug } });
  const stats = deps.throughput.stats(entry.slug);
  return {
    status: 200,
    body: nativeOk({
      slug: entry.slug,
      tokens_per_sec: stats.tokensPerSec ?? entry.tokens_per_sec,
      tokens_per_sec_approx: stats.tokensPerSec === null,
      samples: stats.samples,
      window_sec: deps.config.THROUGHPUT_WINDOW_MS / 1000,
      median_time_to_first_token_ms: stats.medianTtftMs,
    }),
  };
};

import type { UsageRecord } from '../../adapters/usage-log/index.js';
import { csv } from '../../lib/csv.js';
import { fromMicro, microsToUsd } from '../billing/money.js';
import { rubPricingOf } from '../billing/rub-billing.js';

const COLUMNS = [
  'id',
  'created_at',
  'request_id',
  'key_id',
  'model',
  'kind',
  'endpoint',
  'prompt_tokens',
  'completion_tokens',
  'cached_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_usd',
  'cost_rub',
  'fx_rate_rub',
  'rub_pricing',
] as const;

/** The usage export (SPEC 4.3): one line per record, with cost_rub, fx_rate_rub and rub_pricing. */
export function usageCsv(records: readonly UsageRecord[], marketRateMicro: bigint): string {
  const rows = records.map((r) => {
    const rub = rubPricingOf(r, marketRateMicro);
    return [
      r.id,
      new Date(r.createdAtMs).toISOString(),
      r.requestId,
      r.keyId,
      r.model,
      r.kind,
      r.endpoint,
      r.promptTokens,
      r.completionTokens,
      r.cachedTokens,
      r.reasoningTokens,
      r.totalTokens,
      microsToUsd(r.costMicros),
      fromMicro(rub.costRubMicro),
      fromMicro(rub.fxRateRubMicro),
      rub.rubPricing,
    ];
  });
  return csv(COLUMNS, rows);
}

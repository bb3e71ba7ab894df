import type { components } from '../../../generated/openapi.js';
import type { UsageRecord } from '../../adapters/usage-log/index.js';
import { fromMicro, microsToUsd } from '../../domain/billing/money.js';
import { rubPricingOf } from '../../domain/billing/rub-billing.js';

type WireUsageRecord = components['schemas']['UsageRecord'];

/** A usage record on the wire (SPEC 2.6); `metadata` only where the full record is asked for. */
export function usageRecordView(record: UsageRecord, marketRateMicro: bigint, withMetadata = false): WireUsageRecord {
  const rub = rubPricingOf(record, marketRateMicro);
  return {
    id: record.id,
    created_at: new Date(record.createdAtMs).toISOString(),
    request_id: record.requestId,
    key_id: record.keyId,
    model: record.model,
    kind: record.kind,
    endpoint: record.endpoint,
    prompt_tokens: record.promptTokens,
    completion_tokens: record.completionTokens,
    cached_tokens: record.cachedTokens,
    reasoning_tokens: record.reasoningTokens,
    total_tokens: record.totalTokens,
    cost_usd: microsToUsd(record.costMicros),
    cost_rub: fromMicro(rub.costRubMicro),
    fx_rate_rub: fromMicro(rub.fxRateRubMicro),
    rub_pricing: rub.rubPricing,
    duration_ms: record.durationMs,
    ...(withMetadata ? { metadata: record.metadata } : {}),
  };
}

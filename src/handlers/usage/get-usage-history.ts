import { fromMicro, microsToUsd } from '../../domain/billing/money.js';
import { rubOfTotals } from '../../domain/usage/usage-aggregates.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { usageRecordView } from '../views/usage-record-view.js';

/** SPEC 2.6: `logs` newest first and the totals over all of the caller's usage, or one key's (issue 26). */
export const getUsageHistory: Handler<'getUsageHistory'> = async ({ deps, principal, query }) => {
  const { accountId } = requirePrincipal(principal);
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const filter = query.key_id !== undefined ? { keyId: query.key_id } : {};
  const [page, totals] = await Promise.all([
    deps.usage.list(accountId, filter, { limit: limit + 1, offset }),
    deps.usage.totals(accountId, filter),
  ]);
  return {
    status: 200,
    body: nativeOk({
      logs: page.slice(0, limit).map((r) => usageRecordView(r, deps.marketFxRateRubMicro)),
      total_requests: totals.requests,
      total_tokens: totals.totalTokens,
      total_cost_usd: microsToUsd(totals.costMicros),
      total_cost_rub: fromMicro(rubOfTotals(totals, deps.marketFxRateRubMicro)),
      limit,
      offset,
      has_more: page.length > limit,
    }),
  };
};

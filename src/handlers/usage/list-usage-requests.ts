import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { usageRecordView } from '../views/usage-record-view.js';

export const listUsageRequests: Handler<'listUsageRequests'> = async ({ deps, principal, query }) => {
  const { accountId } = requirePrincipal(principal);
  const limit = query.limit ?? 50;
  const offset = query.offset ?? 0;
  const filter = {
    ...(query.key_id !== undefined ? { keyId: query.key_id } : {}),
    ...(query.model !== undefined ? { model: query.model } : {}),
    ...(query.since !== undefined ? { fromMs: Date.parse(query.since) } : {}),
    ...(query.until !== undefined ? { toMs: Date.parse(query.until) } : {}),
  };
  const page = await deps.usage.list(accountId, filter, { limit: limit + 1, offset });
  return {
    status: 200,
    body: nativeOk({
      requests: page.slice(0, limit).map((r) => usageRecordView(r, deps.marketFxRateRubMicro)),
      limit,
      offset,
      has_more: page.length > limit,
    }),
  };
};

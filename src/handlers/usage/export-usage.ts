import { dayRange } from '../../domain/usage/usage-aggregates.js';
import { usageCsv } from '../../domain/usage/usage-csv.js';
import type { Handler } from '../../http/operation-types.js';
import { addDays, dayStartMs } from '../../lib/utc-days.js';
import { requirePrincipal } from '../require-principal.js';

const MAX_LINES = 100_000;

export const exportUsage: Handler<'exportUsage'> = async ({ deps, principal, query }) => {
  const { accountId } = requirePrincipal(principal);
  const range = dayRange(deps.now(), query.from, query.to);
  const filter = {
    fromMs: dayStartMs(range.from),
    toMs: dayStartMs(addDays(range.to, 1)),
    ...(query.key_id !== undefined ? { keyId: query.key_id } : {}),
  };
  const records = await deps.usage.list(accountId, filter, { limit: MAX_LINES, offset: 0 });
  return {
    status: 200,
    contentType: 'text/csv; charset=utf-8',
    headers: { 'Content-Disposition': `attachment; filename="usage-${range.from}-${range.to}.csv"` },
    body: usageCsv(records, deps.marketFxRateRubMicro),
  };
};

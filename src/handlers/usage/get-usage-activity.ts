import { addTotals, groupTotals, NO_USAGE, toWireAggregate } from '../../domain/usage/usage-aggregates.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { addDays, utcDay } from '../../lib/utc-days.js';
import { requirePrincipal } from '../require-principal.js';

/** Every day of the last `days` (zeros included, for charts), sums by kind, and the total (SPEC 2.6 twins). */
export const getUsageActivity: Handler<'getUsageActivity'> = async ({ deps, principal, query }) => {
  const { accountId, account } = requirePrincipal(principal);
  const days = query.days ?? 30;
  const to = utcDay(deps.now());
  const from = addDays(to, -(days - 1));
  const rows = await deps.usage.daily(accountId, { fromDay: from, toDay: to });
  const rub = account.rubBilling ? { marketRateMicro: deps.marketFxRateRubMicro } : null;
  const byDay = groupTotals(rows, (r) => r.day);
  const byKind = groupTotals(rows, (r) => r.kind);
  const total = rows.reduce(addTotals, NO_USAGE);
  return {
    status: 200,
    body: nativeOk({
      from,
      to,
      days: Array.from({ length: days }, (_, i) => addDays(from, i)).map((date) => ({
        date,
        ...toWireAggregate(byDay.get(date) ?? NO_USAGE, rub),
      })),
      by_kind: [...byKind].map(([kind, totals]) => ({ kind, ...toWireAggregate(totals, rub) })),
      totals: toWireAggregate(total, rub),
    }),
  };
};

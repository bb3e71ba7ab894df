import { groupTotals, toWireAggregate } from '../../domain/usage/usage-aggregates.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

/** One entry per UTC day of the year that had usage (a heat map's data). */
export const getUsageCalendar: Handler<'getUsageCalendar'> = async ({ deps, principal, query }) => {
  const { accountId, account } = requirePrincipal(principal);
  const year = query.year ?? new Date(deps.now()).getUTCFullYear();
  const rows = await deps.usage.daily(accountId, { fromDay: `${year}-01-01`, toDay: `${year}-12-31` });
  const rub = account.rubBilling ? { marketRateMicro: deps.marketFxRateRubMicro } : null;
  const byDay = groupTotals(rows, (r) => r.day);
  return {
    status: 200,
    body: nativeOk({ year, days: [...byDay].map(([date, totals]) => ({ date, ...toWireAggregate(totals, rub) })) }),
  };
};

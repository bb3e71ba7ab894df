import { dayRange, groupTotals, toWireAggregate } from '../../domain/usage/usage-aggregates.js';
import type { UsageReader } from '../../domain/usage/usage-reader.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { addDays, dayStartMs, isoWeekStart } from '../../lib/utc-days.js';
import { requirePrincipal } from '../require-principal.js';

const SEPARATOR = '\u0000';

/** Daily and ISO-weekly sums per model, from the roll-ups (SPEC 4.3); ruble twins for ruble-billed accounts. */
export const getUsageBreakdown: Handler<'getUsageBreakdown'> = async ({ deps, principal, query }) => {
  const { accountId, account } = requirePrincipal(principal);
  const range = dayRange(deps.now(), query.from, query.to);
  const rows = await deps.usage.daily(accountId, { fromDay: range.from, toDay: range.to });
  const rub = account.rubBilling ? { marketRateMicro: deps.marketFxRateRubMicro } : null;
  const byDay = groupTotals(rows, (r) => `${r.day}${SEPARATOR}${r.model}`);
  const byWeek = groupTotals(rows, (r) => `${isoWeekStart(r.day)}${SEPARATOR}${r.model}`);
  const split = (key: string) => key.split(SEPARATOR) as [string, string];
  const byKey = query.by_key === true ? await keyTotals(deps.usage, accountId, range, rub) : {};
  return {
    status: 200,
    body: nativeOk({
      from: range.from,
      to: range.to,
      daily: [...byDay].map(([key, totals]) => ({
        date: split(key)[0],
        model: split(key)[1],
        ...toWireAggregate(totals, rub),
      })),
      weekly: [...byWeek].map(([key, totals]) => ({
        week_start: split(key)[0],
        model: split(key)[1],
        ...toWireAggregate(totals, rub),
      })),
      ...byKey,
    }),
  };
};

/** Issue 26 item 6: each key's totals over the same days, from the records (the roll-ups know no key). */
async function keyTotals(
  usage: UsageReader,
  accountId: string,
  range: { from: string; to: string },
  rub: { marketRateMicro: bigint } | null,
) {
  const filter = { fromMs: dayStartMs(range.from), toMs: dayStartMs(addDays(range.to, 1)) };
  const rows = await usage.totalsByKey(accountId, filter);
  return { by_key: rows.map(({ keyId, ...totals }) => ({ key_id: keyId, ...toWireAggregate(totals, rub) })) };
}

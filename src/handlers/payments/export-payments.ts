import { paymentsCsv } from '../../domain/payments/payments-csv.js';
import { dayRange } from '../../domain/usage/usage-aggregates.js';
import type { Handler } from '../../http/operation-types.js';
import { addDays, dayStartMs } from '../../lib/utc-days.js';
import { requirePrincipal } from '../require-principal.js';
import { depositView } from '../views/deposit-view.js';
import { withdrawalView } from '../views/withdrawal-view.js';

const MAX_LINES = 100_000;
const PAGE = 500;

/** The records created in [fromMs, toMs) of a newest-first list, read page by page until older ones start. */
async function inRange<T extends { createdAtMs: number }>(
  list: (page: { limit: number; offset: number }) => Promise<T[]>,
  fromMs: number,
  toMs: number,
): Promise<T[]> {
  const found: T[] = [];
  for (let offset = 0; found.length < MAX_LINES; offset += PAGE) {
    const page = await list({ limit: PAGE, offset });
    found.push(...page.filter((r) => r.createdAtMs >= fromMs && r.createdAtMs < toMs));
    if (page.length < PAGE || page.at(-1)!.createdAtMs < fromMs) break;
  }
  return found.slice(0, MAX_LINES);
}

export const exportPayments: Handler<'exportPayments'> = async ({ deps, principal, query }) => {
  const { accountId } = requirePrincipal(principal);
  const range = dayRange(deps.now(), query.from, query.to);
  const [fromMs, toMs] = [dayStartMs(range.from), dayStartMs(addDays(range.to, 1))];
  const [deposits, withdrawals] = await Promise.all([
    inRange((page) => deps.payments.deposits.list(accountId, page), fromMs, toMs),
    inRange((page) => deps.withdrawals.withdrawals.list(accountId, page), fromMs, toMs),
  ]);
  return {
    status: 200,
    contentType: 'text/csv; charset=utf-8',
    headers: { 'Content-Disposition': `attachment; filename="payments-${range.from}-${range.to}.csv"` },
    body: paymentsCsv(deposits.map(depositView), withdrawals.map(withdrawalView)),
  };
};

import type { DepositRecord } from '../../adapters/deposit-store/index.js';
import type { PaymentsContext } from './payments-context.js';

/** One place where a rail and the ledger disagree (docs/payments.md "When a rail disagrees with the ledger"). */
export interface Difference {
  deposit_id: string;
  method: string;
  status: string;
  problem: 'paid_not_credited' | 'credited_not_paid' | 'credit_missing' | 'amount_differs' | 'rail_unreachable';
  detail: string;
}

const PAGE = 200;

/** The ledger transfer that credited a deposit (deposit-settlement.ts, usdt-deposits.ts). */
const creditId = (d: DepositRecord) => (d.processor === 'tron' ? `dep:tron:${d.processorRef}` : `dep:${d.id}`);

/**
 * Compares every deposit with the ledger and with its rail (issue 27 item 5): a credited deposit must have its
 * credit transfer, of its amount, and its processor must call it paid; a deposit not credited must not be paid.
 * Reads only; an operator acts on what it prints.
 */
export function reconcileDeposits(ctx: PaymentsContext): Promise<{ checked: number; differences: Difference[] }> {
  return checkEvery(
    (afterId, limit) => ctx.deposits.scan(afterId, limit),
    (deposit) => check(ctx, deposit),
  );
}

/** Walks a store in id order, a page at a time, and gathers what `check` finds wrong with each record. */
export async function checkEvery<R extends { id: string }, D>(
  scan: (afterId: string | null, limit: number) => Promise<R[]>,
  check: (record: R) => Promise<D[]>,
): Promise<{ checked: number; differences: D[] }> {
  const differences: D[] = [];
  let checked = 0;
  for (let afterId: string | null = null; ; ) {
    const page = await scan(afterId, PAGE);
    if (page.length === 0) return { checked, differences };
    for (const record of page) differences.push(...(await check(record)));
    checked += page.length;
    afterId = page.at(-1)!.id;
  }
}

async function check(ctx: PaymentsContext, deposit: DepositRecord): Promise<Difference[]> {
  const found = (problem: Difference['problem'], detail: string): Difference[] => [
    { deposit_id: deposit.id, method: deposit.method, status: deposit.status, problem, detail },
  ];
  const credited = deposit.creditedMicros !== null;
  if (credited) {
    const transfer = await ctx.ledger.getTransfer(creditId(deposit));
    if (transfer === null) return found('credit_missing', `no ledger transfer ${creditId(deposit)}`);
    if (transfer.postedMicros !== deposit.creditedMicros)
      return found('amount_differs', `ledger ${transfer.postedMicros}, deposit ${deposit.creditedMicros} micro-USD`);
  }
  if (deposit.processor === 'tron' || deposit.processorRef === null) return [];
  const rail = ctx.rails[deposit.processor];
  const state = await rail?.retrieve(deposit.processorRef).catch(() => undefined);
  if (state === undefined) return found('rail_unreachable', `${deposit.processor} did not answer`);
  const paid = state?.status === 'paid';
  if (credited && !paid) return found('credited_not_paid', `${deposit.processor} says ${state?.status ?? 'unknown'}`);
  if (!credited && paid) return found('paid_not_credited', `${deposit.processor} says paid`);
  return [];
}

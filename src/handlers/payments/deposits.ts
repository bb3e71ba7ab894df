import { getDeposit as oneDeposit, startDeposit } from '../../domain/payments/deposits.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { depositView } from '../views/deposit-view.js';

/** Issue 27: a checkout page to pay on (card, SBP), or the account's USDT address. */
export const createDeposit: Handler<'createDeposit'> = async ({ deps, principal, body }) => {
  const { accountId } = requirePrincipal(principal);
  const request = { method: body!.method, amountUsd: body!.amount_usd, amountRub: body!.amount_rub };
  const deposit = await startDeposit(deps.payments, accountId, request);
  return { status: 201, body: nativeOk(depositView(deposit), 'Пополнение создано') };
};

export const listDeposits: Handler<'listDeposits'> = async ({ deps, principal, query }) => {
  const { accountId } = requirePrincipal(principal);
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0 };
  const deposits = await deps.payments.deposits.list(accountId, page);
  return { status: 200, body: nativeOk({ deposits: deposits.map(depositView) }) };
};

export const getDeposit: Handler<'getDeposit'> = async ({ deps, principal, params }) => {
  const { accountId } = requirePrincipal(principal);
  return { status: 200, body: nativeOk(depositView(await oneDeposit(deps.payments, accountId, params.deposit_id))) };
};

import { microsToUsd, usdToMicros } from '../../domain/billing/money.js';
import { withdrawable } from '../../domain/payments/withdrawable.js';
import { ownWithdrawal, requestWithdrawal } from '../../domain/payments/withdrawals.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { clientInfo } from '../auth/client-info.js';
import { requirePrincipal } from '../require-principal.js';
import { withdrawalView } from '../views/withdrawal-view.js';

/** Issue 27 item 4: earnings out to a cooled address of the book, held now, sent by the signer and the pipeline. */
export const createWithdrawal: Handler<'createWithdrawal'> = async ({ deps, principal, body, req }) => {
  const { account } = requirePrincipal(principal);
  const request = { addressId: body!.address_id, amountMicros: usdToMicros(body!.amount_usd), totp: body!.totp };
  const withdrawal = await requestWithdrawal(deps.withdrawals, account, request, clientInfo(req).address);
  return { status: 201, body: nativeOk(withdrawalView(withdrawal), 'Вывод средств создан') };
};

export const listWithdrawals: Handler<'listWithdrawals'> = async ({ deps, principal, query }) => {
  const { accountId } = requirePrincipal(principal);
  const page = { limit: query.limit ?? 50, offset: query.offset ?? 0 };
  const [withdrawals, can] = await Promise.all([
    deps.withdrawals.withdrawals.list(accountId, page),
    withdrawable(deps.withdrawals, accountId),
  ]);
  return {
    status: 200,
    body: nativeOk({
      withdrawals: withdrawals.map(withdrawalView),
      withdrawable_usd: microsToUsd(can.withdrawableMicros),
      maturing_usd: microsToUsd(can.maturingMicros),
    }),
  };
};

export const getWithdrawal: Handler<'getWithdrawal'> = async ({ deps, principal, params }) => {
  const { accountId } = requirePrincipal(principal);
  const withdrawal = await ownWithdrawal(deps.withdrawals, accountId, params.withdrawal_id);
  return { status: 200, body: nativeOk(withdrawalView(withdrawal)) };
};

import {
  addWithdrawalAddress as add,
  removeWithdrawalAddress as remove,
} from '../../domain/payments/withdrawal-addresses.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { clientInfo } from '../auth/client-info.js';
import { requirePrincipal } from '../require-principal.js';
import { withdrawalAddressView } from '../views/withdrawal-view.js';

/** Issue 27 item 4: the address book withdrawals go to; adding and removing need a signed-in session (contract). */
export const addWithdrawalAddress: Handler<'addWithdrawalAddress'> = async ({ deps, principal, body, req }) => {
  const { accountId } = requirePrincipal(principal);
  const entry = await add(deps.withdrawals, accountId, body!, clientInfo(req).address);
  return { status: 201, body: nativeOk(withdrawalAddressView(entry), 'Адрес добавлен') };
};

export const listWithdrawalAddresses: Handler<'listWithdrawalAddresses'> = async ({ deps, principal }) => {
  const { accountId } = requirePrincipal(principal);
  const addresses = await deps.withdrawals.withdrawals.listAddresses(accountId);
  return { status: 200, body: nativeOk({ addresses: addresses.map(withdrawalAddressView) }) };
};

export const removeWithdrawalAddress: Handler<'removeWithdrawalAddress'> = async ({ deps, principal, params }) => {
  const { accountId } = requirePrincipal(principal);
  await remove(deps.withdrawals, accountId, params.address_id);
  return { status: 200, body: nativeOk({ deleted: true as const }) };
};

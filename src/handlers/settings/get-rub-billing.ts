import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { rubBillingView } from './rub-billing-view.js';

export const getRubBilling: Handler<'getRubBilling'> = async ({ deps, principal }) => {
  const { accountId, account } = requirePrincipal(principal);
  const [balance, lots] = await deps.billing.read(accountId, () =>
    Promise.all([deps.ledger.getBalance(accountId), deps.ledger.listLots(accountId)]),
  );
  return { status: 200, body: nativeOk(rubBillingView(account.rubBilling, balance, lots, deps.marketFxRateRubMicro)) };
};

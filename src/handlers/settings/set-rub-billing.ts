import { orUnavailable } from '../../errors/api-error.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { rubBillingView } from './rub-billing-view.js';

/** SPEC 4.3: from now on spend is priced at the rate of the lot it came from; earlier charges stay `market`. */
export const setRubBilling: Handler<'setRubBilling'> = async ({ deps, principal, body }) => {
  const { accountId } = requirePrincipal(principal);
  const enabled = body?.enabled ?? false;
  await orUnavailable(() => deps.apiKeys.updateAccountSettings(accountId, { rubBilling: enabled }), 'account store');
  deps.authenticator.invalidate({ accountId }); // the next request of this account sees the switch
  const [balance, lots] = await deps.billing.read(accountId, () =>
    Promise.all([deps.ledger.getBalance(accountId), deps.ledger.listLots(accountId)]),
  );
  return {
    status: 200,
    body: nativeOk(rubBillingView(enabled, balance, lots, deps.marketFxRateRubMicro), 'Настройка сохранена'),
  };
};

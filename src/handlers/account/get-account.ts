import { balanceMicros } from '../../adapters/ledger/index.js';
import { fromMicro, microsToUsd } from '../../domain/billing/money.js';
import { rubValueOfBalance } from '../../domain/billing/rub-billing.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';

export const getAccount: Handler<'getAccount'> = async ({ deps, principal }) => {
  const { account, accountId, keyRateLimitPerMinute } = requirePrincipal(principal);
  const balance = await deps.billing.read(accountId, () => deps.ledger.getBalance(accountId));
  const lots = account.rubBilling ? await deps.billing.read(accountId, () => deps.ledger.listLots(accountId)) : null;
  const login = await deps.credentials.findLoginByAccount(accountId);
  return {
    status: 200,
    body: nativeOk({
      account_id: accountId,
      email: account.email,
      balance_usd: microsToUsd(balanceMicros(balance)),
      held_usd: microsToUsd(balance.heldMicros),
      rub_billing: account.rubBilling,
      balance_rub: lots === null ? null : fromMicro(rubValueOfBalance(lots)),
      limits: {
        requests_per_minute_per_key: keyRateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_KEY_PER_MINUTE,
        requests_per_minute_per_account: account.rateLimitPerMinute ?? deps.config.RATE_LIMIT_PER_ACCOUNT_PER_MINUTE,
      },
      discounts: { discount_percent: account.discountPercent, tier_discounts: account.tierDiscounts },
      sign_in: login && { email_confirmed: login.emailConfirmedAtMs !== null, totp_enabled: login.totpSecret !== null },
    }),
  };
};

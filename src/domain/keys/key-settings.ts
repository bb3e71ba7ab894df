import type {
  ApiKeyPatch,
  ApiKeyRecord,
  ApiKeyStore,
  KeySpendLimit,
  SpendPeriod,
} from '../../adapters/api-keys/index.js';
import { ApiError } from '../../errors/api-error.js';
import { scaledToNumber, usdToMicros } from '../billing/money.js';
import type { Principal } from './authenticator.js';

/** A key's settings as the wire gives them (createApiKey, updateApiKey); absent = unchanged. */
export interface WireKeySettings {
  name?: string;
  rate_limit_per_minute?: number | null;
  spend_limit?: { amount_usd: number; period: SpendPeriod } | null;
}

/**
 * The owner's settings of a key, checked (issue 26 item 6): a key's rate limit stays within the account's own
 * (SPEC 8 "bumpable": `accountLimitPerMinute` is the account's, or the configured default), and a spend limit is a
 * whole number of micro-dollars (400 `invalid_spend_limit` for more than 6 decimals).
 */
export function keyPatch(settings: WireKeySettings, principal: Principal, defaultPerMinute: number): ApiKeyPatch {
  const patch: ApiKeyPatch = {};
  if (settings.name !== undefined) patch.name = settings.name;
  const perMinute = settings.rate_limit_per_minute;
  if (perMinute !== undefined) {
    const accountPerMinute = principal.account.rateLimitPerMinute ?? defaultPerMinute;
    if (perMinute !== null && perMinute > accountPerMinute)
      throw new ApiError(
        'key_rate_limit_above_account',
        `rate_limit_per_minute ${perMinute} is above the account's own limit of ${accountPerMinute} per minute`,
        { meta: { account_rate_limit_per_minute: accountPerMinute }, param: 'rate_limit_per_minute' },
      );
    patch.rateLimitPerMinute = perMinute;
  }
  if (settings.spend_limit !== undefined) patch.spendLimit = spendLimit(settings.spend_limit);
  return patch;
}

function spendLimit(wire: { amount_usd: number; period: SpendPeriod } | null): KeySpendLimit | null {
  if (wire === null) return null;
  const amountMicros = usdToMicros(wire.amount_usd);
  // Exact only when the amount had at most 6 decimals: a limit is never rounded behind the owner's back.
  if (amountMicros <= 0n || scaledToNumber(amountMicros, 6) !== wire.amount_usd)
    throw new ApiError('invalid_spend_limit', undefined, { param: 'spend_limit.amount_usd' });
  return { amountMicros, period: wire.period };
}

/** The caller's own key changed; another account's key is 404 `api_key_not_found`, so ids cannot be probed. */
export async function updateOwnKey(
  store: ApiKeyStore,
  accountId: string,
  keyId: string,
  patch: ApiKeyPatch,
): Promise<ApiKeyRecord> {
  const key = await store.getKey(keyId);
  const updated = key?.accountId === accountId ? await store.updateKey(keyId, patch) : null;
  if (updated === null) throw new ApiError('api_key_not_found');
  return updated;
}

import type { components } from '../../../generated/openapi.js';
import type { ApiKeyRecord } from '../../adapters/api-keys/index.js';
import type { KeyBudget, KeyStanding } from '../../domain/billing/key-budget.js';
import { microsToUsd } from '../../domain/billing/money.js';
import { isoOrNull } from '../../lib/iso-time.js';

type ApiKey = components['schemas']['ApiKey'];

/** A key as the dashboard shows it: never the secret, never the hash; `standing` of its spend limit, if any. */
function apiKeyView(key: ApiKeyRecord, standing: KeyStanding | null): ApiKey {
  return {
    id: key.id,
    name: key.name,
    display_hint: key.displayHint,
    status: key.revokedAtMs === null ? 'active' : 'revoked',
    scopes: key.managesKeys ? ['keys'] : [],
    created_at: new Date(key.createdAtMs).toISOString(),
    last_used_at: isoOrNull(key.lastUsedAtMs),
    revoked_at: isoOrNull(key.revokedAtMs),
    rate_limit_per_minute: key.rateLimitPerMinute,
    spend_limit:
      key.spendLimit === null
        ? null
        : { amount_usd: microsToUsd(key.spendLimit.amountMicros), period: key.spendLimit.period },
    spend_limit_remaining_usd: standing === null ? null : microsToUsd(standing.remainingMicros),
    spend_limit_resets_at: standing === null ? null : isoOrNull(standing.resetsAtMs),
  };
}

/** A key as the dashboard shows it, with where a limited one stands in its period. */
export async function keyView(key: ApiKeyRecord, budget: KeyBudget): Promise<ApiKey> {
  return apiKeyView(key, await budget.standing(key));
}

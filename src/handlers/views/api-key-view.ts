import type { components } from '../../../generated/openapi.js';
import type { ApiKeyRecord } from '../../adapters/api-keys/index.js';

type ApiKey = components['schemas']['ApiKey'];

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A key as the dashboard shows it: never the secret, never the hash. */
export function apiKeyView(key: ApiKeyRecord): ApiKey {
  return {
    id: key.id,
    name: key.name,
    display_hint: key.displayHint,
    status: key.revokedAtMs === null ? 'active' : 'revoked',
    scopes: key.managesKeys ? ['keys'] : [],
    created_at: new Date(key.createdAtMs).toISOString(),
    last_used_at: iso(key.lastUsedAtMs),
    revoked_at: iso(key.revokedAtMs),
  };
}

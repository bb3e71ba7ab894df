import { revokeKey } from '../../domain/accounts/accounts.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requireKeyManager } from '../require-principal.js';
import { keyView } from '../views/api-key-view.js';

export const revokeApiKey: Handler<'revokeApiKey'> = async ({ deps, principal, params }) => {
  const { accountId } = requireKeyManager(principal);
  const key = await revokeKey(deps.apiKeys, accountId, params.key_id, deps.now);
  // This process refuses the key at once; others within API_KEY_CACHE_TTL_MS.
  deps.authenticator.invalidate({ keyId: key.id });
  return { status: 200, body: nativeOk({ key: await keyView(key, deps.keyBudget) }, 'Ключ отозван') };
};

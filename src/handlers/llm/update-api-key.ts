import { keyPatch, updateOwnKey } from '../../domain/keys/key-settings.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requireKeyManager } from '../require-principal.js';
import { keyView } from '../views/api-key-view.js';

/** Issue 26 item 6: the owner renames a key or sets its rate and spend limits. */
export const updateApiKey: Handler<'updateApiKey'> = async ({ deps, principal, params, body }) => {
  const caller = requireKeyManager(principal);
  const patch = keyPatch(body ?? {}, caller, deps.config.RATE_LIMIT_PER_ACCOUNT_PER_MINUTE);
  const key = await updateOwnKey(deps.apiKeys, caller.accountId, params.key_id, patch);
  // This process applies the change at once; others within API_KEY_CACHE_TTL_MS.
  deps.authenticator.invalidate({ keyId: key.id });
  return { status: 200, body: nativeOk({ key: await keyView(key, deps.keyBudget) }, 'Ключ изменён') };
};

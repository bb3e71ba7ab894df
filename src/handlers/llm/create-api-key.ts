import { issueKey } from '../../domain/accounts/accounts.js';
import { keyPatch } from '../../domain/keys/key-settings.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requireKeyManager } from '../require-principal.js';
import { keyView } from '../views/api-key-view.js';

/**
 * SPEC 5.1: the secret is in this response only. Only a key manager mints keys, with the scopes and limits it asks
 * for (issue 26 item 6).
 */
export const createApiKey: Handler<'createApiKey'> = async ({ deps, principal, body }) => {
  const caller = requireKeyManager(principal);
  const scopes = { managesKeys: body?.scopes?.includes('keys') ?? false };
  const { rateLimitPerMinute, spendLimit } = keyPatch(
    body ?? {},
    caller,
    deps.config.RATE_LIMIT_PER_ACCOUNT_PER_MINUTE,
  );
  const limits = { rateLimitPerMinute, spendLimit };
  const { record, secret } = await issueKey(deps.apiKeys, caller.accountId, body?.name, deps.now, scopes, limits);
  return {
    status: 201,
    body: nativeOk({ key: await keyView(record, deps.keyBudget), api_key: secret }, 'Ключ создан'),
  };
};

import { issueKey } from '../../domain/accounts.js';
import type { Handler } from '../../http/operation-types.js';
import { nativeOk } from '../../http/native-ok.js';
import { requirePrincipal } from '../require-principal.js';
import { apiKeyView } from '../views/api-key-view.js';

/** SPEC 5.1: the secret is in this response only. */
export const createApiKey: Handler<'createApiKey'> = async ({ deps, principal, body }) => {
  const { accountId } = requirePrincipal(principal);
  const { record, secret } = await issueKey(deps.apiKeys, accountId, body?.name, deps.now);
  return { status: 201, body: nativeOk({ key: apiKeyView(record), api_key: secret }, 'Ключ создан') };
};

import { issueKey } from '../../domain/accounts/accounts.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requireKeyManager } from '../require-principal.js';
import { apiKeyView } from '../views/api-key-view.js';

/** SPEC 5.1: the secret is in this response only. Only a key manager mints keys, with the scopes it asks for. */
export const createApiKey: Handler<'createApiKey'> = async ({ deps, principal, body }) => {
  const { accountId } = requireKeyManager(principal);
  const scopes = { managesKeys: body?.scopes?.includes('keys') ?? false };
  const { record, secret } = await issueKey(deps.apiKeys, accountId, body?.name, deps.now, scopes);
  return { status: 201, body: nativeOk({ key: apiKeyView(record), api_key: secret }, 'Ключ создан') };
};

import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { requirePrincipal } from '../require-principal.js';
import { keyView } from '../views/api-key-view.js';

export const listApiKeys: Handler<'listApiKeys'> = async ({ deps, principal }) => {
  const { accountId } = requirePrincipal(principal);
  const keys = await deps.apiKeys.listKeys(accountId);
  return { status: 200, body: nativeOk({ keys: await Promise.all(keys.map((key) => keyView(key, deps.keyBudget))) }) };
};

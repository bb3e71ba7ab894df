import {
  changeEmail as askToChangeEmail,
  deleteOwnAccount,
  changePassword as setNewPassword,
} from '../../domain/accounts/account-lifecycle.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { clearSessionCookies } from '../../http/session-cookies.js';
import { ACCEPTED, clientInfo, requireSession } from '../auth/client-info.js';

/** Issue 26 item 7: nothing changes until the new address follows its link. */
export const changeEmail: Handler<'changeEmail'> = async ({ deps, principal, body, req }) => {
  await askToChangeEmail(deps.auth, requireSession(principal).accountId, body!, clientInfo(req).address);
  return { status: 202, body: nativeOk(ACCEPTED, 'Проверьте почту') };
};

export const changePassword: Handler<'changePassword'> = async ({ deps, principal, body }) => {
  const { accountId, sessionId } = requireSession(principal);
  const input = { currentPassword: body!.current_password, newPassword: body!.new_password };
  const { sessionsRevoked } = await setNewPassword(deps.auth, accountId, sessionId, input);
  return { status: 200, body: nativeOk({ sessions_revoked: sessionsRevoked }, 'Пароль изменён') };
};

/** SPEC 5.4: the account's keys answer `user_not_found` from now on. */
export const deleteAccount: Handler<'deleteAccount'> = async ({ deps, principal, body, req, res }) => {
  const { accountId } = requireSession(principal);
  const checks = {
    balance: (id: string) => deps.ledger.getBalance(id),
    rentalsRunning: async (id: string) => (await deps.market.store.wantedRunning(id)).length,
    forget: (id: string) => deps.authenticator.invalidate({ accountId: id }),
  };
  await deleteOwnAccount(deps.auth, checks, accountId, body!, clientInfo(req).address);
  clearSessionCookies(res);
  return { status: 200, body: nativeOk({ deleted: true as const }, 'Аккаунт удалён') };
};

import {
  confirmPasswordReset as confirm,
  requestPasswordReset as request,
} from '../../domain/accounts/password-reset.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { ACCEPTED, clientInfo } from './client-info.js';

/** Issue 26 item 5: the same 202 for every address. */
export const requestPasswordReset: Handler<'requestPasswordReset'> = async ({ deps, body, req }) => {
  await request(deps.auth, body!.email, clientInfo(req).address);
  return { status: 202, body: nativeOk(ACCEPTED, 'Проверьте почту') };
};

export const confirmPasswordReset: Handler<'confirmPasswordReset'> = async ({ deps, body, req }) => {
  const { sessionsRevoked } = await confirm(deps.auth, body!, clientInfo(req).address);
  return { status: 200, body: nativeOk({ sessions_revoked: sessionsRevoked }, 'Пароль изменён') };
};

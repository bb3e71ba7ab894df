import {
  confirmEmail as confirm,
  signUp as register,
  resendConfirmation as resend,
} from '../../domain/accounts/sign-up.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { ACCEPTED, clientInfo } from './client-info.js';

/** Issue 26 item 1: the same 202 for every address; the mailbox tells the rest. */
export const signUp: Handler<'signUp'> = async ({ deps, body, req }) => {
  await register(deps.auth, body!, clientInfo(req).address);
  return { status: 202, body: nativeOk(ACCEPTED, 'Проверьте почту') };
};

export const confirmEmail: Handler<'confirmEmail'> = async ({ deps, body, req }) => {
  const { email } = await confirm(deps.auth, body!.token, clientInfo(req).address);
  return { status: 200, body: nativeOk({ email, email_confirmed: true as const }, 'Адрес подтверждён') };
};

export const resendConfirmation: Handler<'resendConfirmation'> = async ({ deps, body, req }) => {
  await resend(deps.auth, body!.email, clientInfo(req).address);
  return { status: 202, body: nativeOk(ACCEPTED, 'Проверьте почту') };
};

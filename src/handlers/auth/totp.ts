import {
  confirmTotp as confirm,
  disableTotp as disable,
  enrolTotp as enrol,
} from '../../domain/accounts/second-factor.js';
import { nativeOk } from '../../http/native-ok.js';
import type { Handler } from '../../http/operation-types.js';
import { clientInfo, requireSession } from './client-info.js';

/** Issue 26 item 4: a secret to load into an app; nothing changes until it is confirmed. */
export const enrolTotp: Handler<'enrolTotp'> = async ({ deps, principal }) => {
  const enrolment = await enrol(deps.auth, requireSession(principal).accountId);
  return {
    status: 201,
    body: nativeOk({
      secret: enrolment.secret,
      otpauth_uri: enrolment.otpauthUri,
      enrolment_token: enrolment.enrolmentToken,
      expires_at: new Date(enrolment.expiresAtMs).toISOString(),
    }),
  };
};

export const confirmTotp: Handler<'confirmTotp'> = async ({ deps, principal, body }) => {
  const input = { enrolmentToken: body!.enrolment_token, code: body!.code };
  const recoveryCodes = await confirm(deps.auth, requireSession(principal).accountId, input);
  return { status: 200, body: nativeOk({ totp_enabled: true as const, recovery_codes: recoveryCodes }) };
};

export const disableTotp: Handler<'disableTotp'> = async ({ deps, principal, body, req }) => {
  await disable(deps.auth, requireSession(principal).accountId, body!, clientInfo(req).address);
  return { status: 200, body: nativeOk({ totp_enabled: false as const }) };
};

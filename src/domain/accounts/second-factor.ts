import { ApiError } from '../../errors/api-error.js';
import { type AuthContext, claimsOrInvalid, linkNoLongerValid, loginOf, requirePassword } from './auth-context.js';
import { generateRecoveryCodes, recoveryCodeHash } from './recovery-codes.js';
import { checkSecondFactor } from './second-factor-check.js';
import { createTotpSecret, totpEnrolmentUri, verifyTotpCode } from './totp.js';

export interface TotpEnrolment {
  secret: string;
  otpauthUri: string;
  enrolmentToken: string;
  expiresAtMs: number;
}

/**
 * Enrolment, step one (issue 26 item 4): a new secret, shown to the person and carried to step two inside a signed
 * enrolment token, so nothing is stored until an app proves it computes the codes.
 */
export async function enrolTotp(ctx: AuthContext, accountId: string): Promise<TotpEnrolment> {
  const login = await loginOf(ctx, accountId);
  if (login.totpSecret !== null) throw new ApiError('totp_already_enabled');
  const secret = createTotpSecret();
  const token = ctx.links.issue('totp_enrol', accountId, secret, ctx.now());
  return {
    secret,
    otpauthUri: totpEnrolmentUri(secret, login.email),
    enrolmentToken: token.token,
    expiresAtMs: token.expiresAtMs,
  };
}

/** Step two: a code of the enrolled secret turns the factor on; answers the recovery codes, shown this once. */
export async function confirmTotp(
  ctx: AuthContext,
  accountId: string,
  input: { enrolmentToken: string; code: string },
): Promise<string[]> {
  const nowMs = ctx.now();
  const claims = claimsOrInvalid(ctx.links.verify(input.enrolmentToken, 'totp_enrol', nowMs));
  if (claims.accountId !== accountId) throw linkNoLongerValid('This enrolment belongs to another account');
  const login = await loginOf(ctx, accountId);
  if (login.totpSecret !== null) throw new ApiError('totp_already_enabled');
  const check = verifyTotpCode({ secretBase32: claims.subject, code: input.code, lastAcceptedStep: null, nowMs });
  if (!check.ok) throw new ApiError('invalid_totp');
  await ctx.credentials.setTotp(accountId, claims.subject, nowMs);
  await ctx.credentials.recordTotpStep(accountId, check.step);
  const codes = generateRecoveryCodes();
  await ctx.credentials.replaceRecoveryCodes(accountId, codes.map(recoveryCodeHash), nowMs);
  return codes;
}

/** Turns the factor off: needs the password and a current code (or a recovery code). */
export async function disableTotp(
  ctx: AuthContext,
  accountId: string,
  input: { password: string; totp: string },
  address: string,
): Promise<void> {
  const login = await loginOf(ctx, accountId);
  if (login.totpSecret === null) throw new ApiError('totp_not_enabled');
  await requirePassword(ctx, login, input.password);
  await checkSecondFactor(ctx, login, input.totp, address);
  await ctx.credentials.clearTotp(accountId, ctx.now());
}

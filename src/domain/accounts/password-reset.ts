import type { AuthContext } from './auth-context.js';
import { claimsOrInvalid, linkNoLongerValid } from './auth-context.js';
import { resetFingerprint } from './password-hasher.js';
import { checkSecondFactor } from './second-factor-check.js';
import { emailOrInvalid, requireStrongPassword } from './sign-up.js';

/** Mails a reset link when the address has a login; the same answer for any other address (issue 26 item 5). */
export async function requestPasswordReset(ctx: AuthContext, rawEmail: string, address: string): Promise<void> {
  const email = emailOrInvalid(rawEmail);
  await ctx.throttle.passwordResetRequest({ address, email });
  const login = await ctx.credentials.findLoginByEmail(email);
  if (login === null) return;
  const link = ctx.links.issue('reset_password', login.accountId, resetFingerprint(login), ctx.now());
  ctx.mail.resetPassword(email, link.url!);
}

/**
 * Sets a new password from a reset link: the link works once, and only while the password and the address are the
 * ones it was sent for. The mailbox is proven, so the address counts as confirmed; every session ends (issue 26 item 5). An account
 * with a second factor needs its code too, checked before the link is used up, so a wrong code does not waste it.
 */
export async function confirmPasswordReset(
  ctx: AuthContext,
  input: { token: string; password: string; totp?: string | undefined },
  address: string,
): Promise<{ sessionsRevoked: number }> {
  await ctx.throttle.linkRedemption({ address });
  const nowMs = ctx.now();
  const claims = claimsOrInvalid(ctx.links.verify(input.token, 'reset_password', nowMs));
  const login = await ctx.credentials.findLoginByAccount(claims.accountId);
  if (login === null) throw linkNoLongerValid('This account no longer exists');
  if (resetFingerprint(login) !== claims.subject)
    throw linkNoLongerValid('The password or the address changed since this link was sent');
  requireStrongPassword(input.password);
  await checkSecondFactor(ctx, login, input.totp, address);
  if (!(await ctx.credentials.markNonceUsed(claims.nonce, 'reset_password', claims.expiresAtMs)))
    throw linkNoLongerValid('This link was used already');
  await ctx.credentials.setPasswordHash(login.accountId, await ctx.passwords.hash(input.password), nowMs);
  await ctx.credentials.confirmEmail(login.accountId, nowMs);
  return { sessionsRevoked: await ctx.credentials.revokeAccountSessions(login.accountId, nowMs) };
}

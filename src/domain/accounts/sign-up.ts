import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { normaliseEmail } from './accounts.js';
import { type AuthContext, claimsOrInvalid, linkNoLongerValid } from './auth-context.js';
import { resetFingerprint } from './password-hasher.js';
import { checkPasswordPolicy, type PasswordRejection } from './password-policy.js';

const WEAK: Readonly<Record<PasswordRejection, string>> = {
  too_short: 'The password must be at least 12 characters long',
  too_long: 'The password must be at most 256 characters long',
  too_common: 'This password is one of the most common ones: choose another',
};

/** 400 `weak_password` naming the rule (meta.rule) unless `password` may be set. */
export function requireStrongPassword(password: string): void {
  const check = checkPasswordPolicy(password);
  if (!check.ok) throw new ApiError('weak_password', WEAK[check.reason], { meta: { rule: check.reason } });
}

/** 400 `invalid_email` for an address mail cannot go to; otherwise its lower-cased form. */
export function emailOrInvalid(raw: string): string {
  try {
    return normaliseEmail(raw);
  } catch {
    throw new ApiError('invalid_email');
  }
}

/**
 * Sign-up (issue 26 item 1). The password is hashed before anything is looked up, so a registered address costs the
 * same time as a new one, and the answer never differs: a new address gets its confirmation link; a registered one
 * gets a mail saying so, with a reset link. An account with no login yet (made by the operator, or left by a sign-up
 * that stopped half-way) gets this login, unconfirmed: only the mailbox's owner can confirm it and sign in.
 */
export async function signUp(ctx: AuthContext, input: { email: string; password: string }, address: string) {
  const email = emailOrInvalid(input.email);
  await ctx.throttle.signUp({ address, email });
  requireStrongPassword(input.password);
  const passwordHash = await ctx.passwords.hash(input.password);
  const nowMs = ctx.now();
  const created = await ctx.apiKeys.createAccount({ id: newId('acc'), email, createdAtMs: nowMs });
  const accountId = created.ok ? created.account.id : (await ctx.apiKeys.findAccountByEmail(email))?.id;
  if (accountId === undefined) return; // deleted between the two reads: nothing to tell anyone
  let existing = await ctx.credentials.findLoginByEmail(email);
  if (existing !== null && (await ctx.apiKeys.getAccount(existing.accountId)) === null) {
    // The login outlived its account (deleted by the operator): it signs nobody in, so it makes way.
    await ctx.credentials.deleteLogin(existing.accountId);
    existing = null;
  }
  if (existing === null) {
    // A concurrent sign-up of the same address may take the login between the read and the write: its loser is
    // answered as if the address had been registered before.
    const created = await ctx.credentials
      .createLogin({ accountId, email, passwordHash, createdAtMs: nowMs })
      .catch(() => null);
    if (created?.ok === true) return sendConfirmation(ctx, accountId, email, nowMs);
  }
  const holder = existing ?? (await ctx.credentials.findLoginByEmail(email));
  if (holder === null) return;
  const reset = ctx.links.issue('reset_password', holder.accountId, resetFingerprint(holder), nowMs);
  ctx.mail.alreadyRegistered(email, reset.url!);
}

function sendConfirmation(ctx: AuthContext, accountId: string, email: string, nowMs: number): void {
  ctx.mail.confirmAddress(email, ctx.links.issue('confirm_email', accountId, email, nowMs).url!);
}

/** Sends the link again to an address whose login is not confirmed; the same answer for any other address. */
export async function resendConfirmation(ctx: AuthContext, rawEmail: string, address: string): Promise<void> {
  const email = emailOrInvalid(rawEmail);
  await ctx.throttle.confirmationResend({ address, email });
  const login = await ctx.credentials.findLoginByEmail(email);
  if (login !== null && login.emailConfirmedAtMs === null) sendConfirmation(ctx, login.accountId, email, ctx.now());
}

/**
 * Follows a confirmation link: the sign-up's (the address becomes confirmed) or a new address's (it becomes the
 * account's). A link works once (contract: confirmEmail; DESIGN.md 10 "a signed one-time link") and only while its
 * address is the one it was sent for. A sign-up link followed after the address was confirmed another way (another
 * link, a password reset) is used up without writing anything.
 */
export async function confirmEmail(ctx: AuthContext, token: string, address: string): Promise<{ email: string }> {
  await ctx.throttle.linkRedemption({ address });
  const nowMs = ctx.now();
  const claims = claimsOrInvalid(ctx.links.verify(token, ['confirm_email', 'change_email'], nowMs));
  const login = await ctx.credentials.findLoginByAccount(claims.accountId);
  if (login === null) throw linkNoLongerValid('This account no longer exists');
  if (claims.purpose === 'confirm_email' && login.email !== claims.subject)
    throw linkNoLongerValid('The account has another address since this link was sent');
  const purpose = claims.purpose === 'confirm_email' ? 'confirm_email' : 'change_email';
  if (!(await ctx.credentials.markNonceUsed(claims.nonce, purpose, claims.expiresAtMs)))
    throw linkNoLongerValid('This link was used already');
  if (claims.purpose === 'confirm_email') {
    if (login.emailConfirmedAtMs === null) await ctx.credentials.confirmEmail(claims.accountId, nowMs);
    return { email: login.email };
  }
  return moveToAddress(ctx, login.accountId, login.email, claims.subject, nowMs);
}

async function moveToAddress(ctx: AuthContext, accountId: string, oldEmail: string, email: string, nowMs: number) {
  const moved = await ctx.apiKeys.setAccountEmail(accountId, email);
  if (!moved.ok) throw linkNoLongerValid('This address belongs to another account now');
  const login = await ctx.credentials.setLoginEmail(accountId, email, nowMs);
  if (!login.ok) {
    await ctx.apiKeys.setAccountEmail(accountId, oldEmail);
    throw linkNoLongerValid('This address belongs to another account now');
  }
  if (oldEmail !== email) ctx.mail.addressChanged(oldEmail, email);
  return { email };
}

import type { Balance } from '../../adapters/ledger/index.js';
import { ApiError } from '../../errors/api-error.js';
import { microsToUsd } from '../billing/money.js';
import { type AuthContext, loginOf, requirePassword } from './auth-context.js';
import { checkSecondFactor } from './second-factor-check.js';
import { emailOrInvalid, requireStrongPassword } from './sign-up.js';

/**
 * Changing the address (issue 26 item 7): the password confirms it, and the new address must follow a link sent to it
 * (sign-up.ts confirmEmail) before anything changes. The answer is the same whether or not another account holds
 * the new address; that account's owner is told instead, and no link is sent.
 */
export async function changeEmail(
  ctx: AuthContext,
  accountId: string,
  input: { email: string; password: string },
  address: string,
): Promise<void> {
  const email = emailOrInvalid(input.email);
  await ctx.throttle.confirmationResend({ address, email });
  const login = await loginOf(ctx, accountId);
  await requirePassword(ctx, login, input.password);
  if (email === login.email) return;
  if ((await ctx.apiKeys.findAccountByEmail(email)) !== null) return ctx.mail.addressInUse(email);
  ctx.mail.confirmNewAddress(email, ctx.links.issue('change_email', accountId, email, ctx.now()).url!);
}

/** A new password; every other session of the account ends, the caller's stays (issue 26 item 7). */
export async function changePassword(
  ctx: AuthContext,
  accountId: string,
  currentSessionId: string | null,
  input: { currentPassword: string; newPassword: string },
): Promise<{ sessionsRevoked: number }> {
  const login = await loginOf(ctx, accountId);
  await requirePassword(ctx, login, input.currentPassword);
  requireStrongPassword(input.newPassword);
  const nowMs = ctx.now();
  await ctx.credentials.setPasswordHash(accountId, await ctx.passwords.hash(input.newPassword), nowMs);
  const sessionsRevoked = await ctx.credentials.revokeAccountSessions(accountId, nowMs, currentSessionId ?? undefined);
  ctx.mail.passwordChanged(login.email);
  return { sessionsRevoked };
}

/** What deleting an account must know beyond its credentials. */
export interface DeletionChecks {
  balance(accountId: string): Promise<Balance>;
  /** Rentals the account wants running (pending, running or offline). */
  rentalsRunning(accountId: string): Promise<number>;
  /** Drops what this process cached of the account's keys, so they answer `user_not_found` at once here. */
  forget(accountId: string): void;
}

/**
 * Deletes the account for good (SPEC 5.4: its keys then answer 404 `user_not_found`). Money is never deleted with an
 * account: a balance that is not zero (held money included) or a rental wanted running refuses it with 409
 * `account_not_empty` (docs/decisions.md). Needs the password and, when set, the second factor.
 */
export async function deleteOwnAccount(
  ctx: AuthContext,
  checks: DeletionChecks,
  accountId: string,
  input: { password: string; totp?: string | undefined },
  address: string,
): Promise<void> {
  const login = await loginOf(ctx, accountId);
  await requirePassword(ctx, login, input.password);
  await checkSecondFactor(ctx, login, input.totp, address);
  const balance = await checks.balance(accountId);
  const held = balance.availableMicros + balance.heldMicros;
  const running = await checks.rentalsRunning(accountId);
  if (held !== 0n || running > 0)
    throw new ApiError('account_not_empty', undefined, {
      meta: { balance_usd: microsToUsd(held), running_rentals: running },
    });
  await ctx.apiKeys.deleteAccount(accountId);
  await ctx.credentials.deleteLogin(accountId);
  checks.forget(accountId);
}

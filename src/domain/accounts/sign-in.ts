import { ApiError } from '../../errors/api-error.js';
import type { AuthContext, ClientInfo } from './auth-context.js';
import { checkSecondFactor } from './second-factor-check.js';
import { type OpenedSession, openSession } from './sessions.js';

/**
 * Sign-in (issue 26 item 3). An unknown address costs the same password work as a known one and gets the same 401
 * `invalid_credentials` as a wrong password. Only after the password was right does the answer say more: the address
 * is not confirmed yet (403 `email_unconfirmed`), or a second factor is needed (401 `totp_required`).
 */
export async function signIn(
  ctx: AuthContext,
  input: { email: string; password: string; totp?: string | undefined },
  client: ClientInfo,
): Promise<OpenedSession> {
  const email = input.email.trim().toLowerCase();
  await ctx.throttle.signIn({ address: client.address, email });
  const login = await ctx.credentials.findLoginByEmail(email);
  const matches =
    login === null
      ? await ctx.passwords.verifyNothing(input.password)
      : await ctx.passwords.verify(input.password, login.passwordHash);
  if (login === null || !matches) throw new ApiError('invalid_credentials');
  if (login.emailConfirmedAtMs === null) throw new ApiError('email_unconfirmed');
  await checkSecondFactor(ctx, login, input.totp, client.address);
  const account = await ctx.apiKeys.getAccount(login.accountId);
  if (account === null) throw new ApiError('invalid_credentials');
  if (account.lockedAtMs !== null) throw new ApiError('account_locked');
  if (ctx.passwords.isOutdated(login.passwordHash))
    await ctx.credentials.setPasswordHash(login.accountId, await ctx.passwords.hash(input.password), ctx.now());
  return openSession(ctx, login.accountId, client);
}

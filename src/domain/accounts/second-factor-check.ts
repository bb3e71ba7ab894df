import type { LoginRecord } from '../../adapters/credential-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import type { AuthContext } from './auth-context.js';
import { consumeRecoveryCode } from './recovery-codes.js';
import { verifyTotpCode } from './totp.js';

const DIGITS_ONLY = /^\s*\d[\d\s]*$/;

/**
 * The second factor where it is asked for (issue 26 item 4: sign-in, password reset, account deletion, withdrawals):
 * nothing when the account has none (withdrawals refuse such an account before: loginWithSecondFactor in
 * payments/withdrawal-addresses.ts); otherwise `code` must be the app's current code, not used before
 * (the store's compare-and-set on the step), or an unused recovery code (consumed atomically). 401 `totp_required`
 * without a code, `invalid_totp` for a wrong one; codes tried are throttled per account (auth-throttle.ts).
 */
export async function checkSecondFactor(
  ctx: AuthContext,
  login: LoginRecord,
  code: string | undefined,
  address: string,
): Promise<void> {
  if (login.totpSecret === null) return;
  if (code === undefined || code.trim() === '') throw new ApiError('totp_required');
  await ctx.throttle.secondFactor({ address, accountId: login.accountId });
  const accepted = DIGITS_ONLY.test(code)
    ? await acceptTotp(ctx, login, code)
    : await acceptRecoveryCode(ctx, login, code);
  if (!accepted) throw new ApiError('invalid_totp');
}

async function acceptTotp(ctx: AuthContext, login: LoginRecord, code: string): Promise<boolean> {
  const check = verifyTotpCode({
    secretBase32: login.totpSecret!,
    code,
    lastAcceptedStep: login.totpLastStep,
    nowMs: ctx.now(),
  });
  return check.ok && (await ctx.credentials.recordTotpStep(login.accountId, check.step));
}

async function acceptRecoveryCode(ctx: AuthContext, login: LoginRecord, code: string): Promise<boolean> {
  const found = consumeRecoveryCode(code, login.recoveryCodeHashes);
  return found.ok && (await ctx.credentials.consumeRecoveryCode(login.accountId, found.usedHash));
}

import type { LoginRecord } from '../../adapters/credential-store/index.js';
import type { WithdrawalAddress } from '../../adapters/withdrawal-store/index.js';
import { ApiError } from '../../errors/api-error.js';
import { newId } from '../../lib/ids.js';
import { isTronAddress } from '../../lib/tron/address.js';
import { checkSecondFactor } from '../accounts/second-factor-check.js';
import { railUnavailable } from './deposit-rails.js';
import type { WithdrawalRail, WithdrawalsContext } from './withdrawals-context.js';

/**
 * The withdrawal address book (issue 27 item 4; research/payments.md 5.2, 5.3): withdrawals go only to an address
 * the account put in its book at least the cooling period ago, so a stolen session or key cannot send money to
 * its thief's address at once, and the owner is mailed about every address added.
 */

/** 503 while withdrawals are off on this service. */
export function withdrawalRail(ctx: WithdrawalsContext): WithdrawalRail {
  if (ctx.rail === null) throw railUnavailable('usdt_trc20', 'this service has no settings for them', 'Withdrawals');
  return ctx.rail;
}

/**
 * The account's login with its second factor, which money leaving needs (DESIGN.md 10: TOTP is "required for
 * withdrawals and for adding a withdrawal address"): an account without a confirmed one, or without a login at all
 * (made by the operator), is refused with 403 `second_factor_required` before the request itself is looked at. Its
 * code (checkSecondFactor, as at sign-in) is asked for last, once nothing else can refuse the request: a code works
 * once, so a typo elsewhere must not spend it.
 */
export async function loginWithSecondFactor(ctx: WithdrawalsContext, accountId: string): Promise<LoginRecord> {
  const login = await ctx.auth.credentials.findLoginByAccount(accountId);
  if (login === null || login.totpSecret === null) throw new ApiError('second_factor_required');
  return login;
}

/**
 * Why an address cannot receive a withdrawal (5.2), or null when it can: what its text shows, so a mistyped address
 * is refused before the second factor is asked for.
 */
function malformed(rail: WithdrawalRail, address: string): string | null {
  if (!isTronAddress(address)) return 'Not a TRON address: expected base58check T…, 34 characters, exactly as shown';
  if (address === rail.contract) return 'This is the USDT token contract: tokens sent to it are lost';
  if (address === rail.hotWallet) return "This is the service's own wallet";
  return null;
}

/** Whether the address is one of this service's deposit addresses: asked only once the second factor was given. */
async function depositAddress(ctx: WithdrawalsContext, address: string): Promise<string | null> {
  return (await ctx.deposits.findAddress(address)) === null
    ? null
    : 'This is a deposit address of this service: send deposits from your own wallet instead';
}

const refuseAddress = (why: string | null): void => {
  if (why !== null) throw new ApiError('invalid_withdrawal_address', why, { param: 'address' });
};

export interface NewAddressRequest {
  address: string;
  label?: string | undefined;
  totp?: string | undefined;
}

export async function addWithdrawalAddress(
  ctx: WithdrawalsContext,
  accountId: string,
  request: NewAddressRequest,
  clientAddress: string,
): Promise<WithdrawalAddress> {
  const rail = withdrawalRail(ctx);
  const login = await loginWithSecondFactor(ctx, accountId);
  const address = request.address.trim();
  refuseAddress(malformed(rail, address));
  await checkSecondFactor(ctx.auth, login, request.totp, clientAddress);
  refuseAddress(await depositAddress(ctx, address));
  const nowMs = ctx.now();
  const entry: WithdrawalAddress = {
    id: newId('wad'),
    accountId,
    address,
    label: request.label ?? null,
    createdAtMs: nowMs,
    usableFromMs: nowMs + ctx.policy.coolingMs,
  };
  const added = await ctx.withdrawals.addAddress(entry);
  if (!added.ok) throw new ApiError('withdrawal_address_taken');
  const account = await ctx.apiKeys.getAccount(accountId);
  if (account !== null)
    ctx.auth.mail.withdrawalAddressAdded(account.email, address, new Date(entry.usableFromMs).toISOString());
  return entry;
}

/** The account's own entry, or 404 `withdrawal_address_not_found`. */
export async function ownAddress(ctx: WithdrawalsContext, accountId: string, id: string): Promise<WithdrawalAddress> {
  const entry = await ctx.withdrawals.getAddress(id);
  if (entry === null || entry.accountId !== accountId)
    throw new ApiError('withdrawal_address_not_found', undefined, { notFound: true });
  return entry;
}

export async function removeWithdrawalAddress(ctx: WithdrawalsContext, accountId: string, id: string): Promise<void> {
  if (!(await ctx.withdrawals.removeAddress(accountId, id)))
    throw new ApiError('withdrawal_address_not_found', undefined, { notFound: true });
}

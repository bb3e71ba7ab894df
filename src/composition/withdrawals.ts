import type { Logger } from 'pino';
import type { ApiKeyStore } from '../adapters/api-keys/index.js';
import type { Ledger } from '../adapters/ledger/index.js';
import type { MarketStore } from '../adapters/market-store/index.js';
import { SqlWithdrawalStore } from '../adapters/withdrawal-store/sql.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import type { AuthContext } from '../domain/accounts/auth-context.js';
import { usdToMicros } from '../domain/billing/money.js';
import type { PaymentsContext } from '../domain/payments/payments-context.js';
import type { WithdrawalPolicy, WithdrawalRail, WithdrawalsContext } from '../domain/payments/withdrawals-context.js';
import type { Market } from './deps.js';
import { buildPayments } from './payments.js';
import { tronNode } from './tron-node.js';

const HOUR_MS = 3_600_000;

export function withdrawalPolicy(config: Config): WithdrawalPolicy {
  return {
    feeMicros: usdToMicros(config.WITHDRAW_FEE_USD),
    minMicros: usdToMicros(config.WITHDRAW_MIN_USD),
    maxMicros: usdToMicros(config.WITHDRAW_MAX_USD),
    dailyAccountMicros: usdToMicros(config.WITHDRAW_DAILY_ACCOUNT_USD),
    dailyTotalMicros: usdToMicros(config.WITHDRAW_DAILY_TOTAL_USD),
    approvalMicros: usdToMicros(config.WITHDRAW_APPROVAL_USD),
    coolingMs: Math.round(config.WITHDRAW_ADDRESS_COOLING_HOURS * HOUR_MS),
    earningsHoldMs: Math.round(config.EARNINGS_HOLD_DAYS * 24 * HOUR_MS),
    expiryMarginMs: config.TRON_EXPIRY_MARGIN_MS,
  };
}

/** The deposit watcher's node when there is one; withdrawals need only the node and the hot wallet's address. */
function buildRail(config: Config, payments: PaymentsContext): WithdrawalRail | null {
  if (config.TRON_NODE_URL === undefined || config.TRON_HOT_WALLET_ADDRESS === undefined) return null;
  const chain = payments.usdt?.chain ?? tronNode({ ...config, TRON_NODE_URL: config.TRON_NODE_URL });
  return { chain, contract: config.TRON_USDT_CONTRACT, hotWallet: config.TRON_HOT_WALLET_ADDRESS };
}

/** USDT-TRC20 withdrawals of provider earnings (issue 27 item 4); off, and said so at start, without their settings. */
export function buildWithdrawals(input: {
  db: Database;
  config: Config;
  ledger: Ledger;
  apiKeys: ApiKeyStore;
  auth: AuthContext;
  payments: PaymentsContext;
  market: MarketStore;
  now: () => number;
  logger: Logger;
}): WithdrawalsContext {
  const rail = buildRail(input.config, input.payments);
  if (rail === null)
    input.logger.info(
      { off: ['withdrawals (TRON_NODE_URL, TRON_HOT_WALLET_ADDRESS)'] },
      'withdrawals off: their settings are missing',
    );
  return {
    withdrawals: new SqlWithdrawalStore(input.db),
    ledger: input.ledger,
    apiKeys: input.apiKeys,
    auth: input.auth,
    deposits: input.payments.deposits,
    earnings: async (accountId, maturedBeforeMs) => {
      const [totalMicros, maturedMicros] = await Promise.all([
        input.market.providerEarnedMicros(accountId, input.now() + 1),
        input.market.providerEarnedMicros(accountId, maturedBeforeMs),
      ]);
      return { totalMicros, maturedMicros };
    },
    rail,
    policy: withdrawalPolicy(input.config),
    now: input.now,
  };
}

/** Money in and out: the deposit rails, and withdrawals over the same TRON node. */
export async function buildRails(input: Parameters<typeof buildPayments>[0] & { auth: AuthContext; market: Market }) {
  const payments = await buildPayments(input);
  const withdrawals = buildWithdrawals({
    ...input,
    apiKeys: input.keys.apiKeys,
    payments,
    market: input.market.store,
  });
  return { payments, withdrawals };
}

import type { Logger } from 'pino';
import type { ApiKeyStore } from '../adapters/api-keys/index.js';
import { SqlDepositStore } from '../adapters/deposit-store/sql.js';
import type { Ledger } from '../adapters/ledger/index.js';
import { YooKassaProcessor } from '../adapters/payment-processor/yookassa.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import type { Rails } from '../domain/payments/deposit-rails.js';
import type { PaymentsContext } from '../domain/payments/payments-context.js';
import type { UsdtRail } from '../domain/payments/usdt-deposits.js';
import { tronNode } from './tron-node.js';

const list = (text: string) =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');

/**
 * The card and bank-transfer rails whose settings are present; the others are off (issue 27). Stripe's client (MBs
 * of code) is loaded only when its rail is on.
 */
async function buildRails(config: Config): Promise<Rails> {
  const rails: Rails = {};
  if (config.STRIPE_SECRET_KEY !== undefined && config.STRIPE_WEBHOOK_SECRET !== undefined) {
    const { StripePaymentProcessor } = await import('../adapters/payment-processor/stripe.js');
    rails.stripe = new StripePaymentProcessor({
      secretKey: config.STRIPE_SECRET_KEY,
      webhookSecrets: list(config.STRIPE_WEBHOOK_SECRET),
      apiBaseUrl: config.STRIPE_API_URL,
    });
  }
  if (config.YOOKASSA_SHOP_ID !== undefined && config.YOOKASSA_SECRET_KEY !== undefined)
    rails.yookassa = new YooKassaProcessor({
      shopId: config.YOOKASSA_SHOP_ID,
      secretKey: config.YOOKASSA_SECRET_KEY,
      apiBase: config.YOOKASSA_API_URL,
      ...(config.YOOKASSA_SENDER_RANGES === undefined ? {} : { senderRanges: list(config.YOOKASSA_SENDER_RANGES) }),
    });
  return rails;
}

/**
 * USDT-TRC20 deposits need both the xpub to derive addresses from and a node to watch (issue 27 item 3). The key
 * derivation (BIP-32 over secp256k1) is loaded only then.
 */
async function buildUsdtRail(config: Config): Promise<UsdtRail | null> {
  if (config.TRON_XPUB === undefined || config.TRON_NODE_URL === undefined) return null;
  const { depositAddress, parseDepositXpub } = await import('../lib/tron/deposit-address.js');
  const account = parseDepositXpub(config.TRON_XPUB);
  const chain = tronNode({ ...config, TRON_NODE_URL: config.TRON_NODE_URL });
  return { chain, contract: config.TRON_USDT_CONTRACT, address: (index) => depositAddress(account, index) };
}

/**
 * Deposits (issue 27, DESIGN.md 11): the rails configured, the store, and the rate ruble deposits are credited at.
 * Each rail that is off is named once at start, so an operator sees why its deposits answer 503.
 */
export async function buildPayments(input: {
  db: Database;
  config: Config;
  ledger: Ledger;
  keys: { apiKeys: ApiKeyStore };
  now: () => number;
  logger: Logger;
  marketFxRateRubMicro: bigint;
}): Promise<PaymentsContext> {
  const { config } = input;
  const rails = await buildRails(config);
  const usdt = await buildUsdtRail(config);
  const off = [
    ...(usdt === null ? ['usdt_trc20 (TRON_XPUB, TRON_NODE_URL)'] : []),
    ...(rails.yookassa === undefined ? ['sbp (YOOKASSA_SHOP_ID, YOOKASSA_SECRET_KEY)'] : []),
  ];
  if (off.length > 0) input.logger.info({ off }, 'deposit methods off: their settings are missing');
  return {
    deposits: new SqlDepositStore(input.db),
    ledger: input.ledger,
    apiKeys: input.keys.apiKeys,
    rails,
    usdt,
    returnUrl: `${(config.PUBLIC_BASE_URL ?? `http://${config.HOST}:${config.PORT}`).replace(/\/+$/, '')}/deposits`,
    rubRateMicro: input.marketFxRateRubMicro,
    now: input.now,
  };
}

/**
 * `npm run signer` (issue 27 item 4): the process that holds the hot wallet's key and signs approved USDT
 * withdrawals, apart from every gateway process (docs/payments.md "Withdrawals"). `--once` signs what is approved
 * now and exits (operators' scripts, tests); otherwise it looks again every SIGNER_POLL_MS until SIGTERM.
 */
import { parseArgs } from 'node:util';
import { pino } from 'pino';
import { openLedger } from '../adapters/ledger/open.js';
import { SqlWithdrawalStore } from '../adapters/withdrawal-store/sql.js';
import { tronNode } from '../composition/tron-node.js';
import { connectDatabase } from '../db/connect.js';
import { usdToMicros } from '../domain/billing/money.js';
import { addressFromPrivateKey } from '../lib/tron/key-address.js';
import { StartupError } from '../runtime/startup.js';
import { loadSignerConfig, readSignerKey } from './signer-config.js';
import { signApprovedWithdrawals } from './withdrawal-signer.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { once: { type: 'boolean', default: false } } });
  const logger = pino({ name: 'signer' });
  const config = loadSignerConfig();
  const privateKey = readSignerKey(config.TRON_SIGNER_KEY_FILE);
  const db = connectDatabase(config.DATABASE_URL);
  const ledger = openLedger(db);
  const deps = {
    withdrawals: new SqlWithdrawalStore(db),
    ledger,
    chain: tronNode(config),
    contract: config.TRON_USDT_CONTRACT,
    privateKey,
    feeLimitSun: config.TRON_FEE_LIMIT_SUN,
    lifetimeMs: config.TRON_TX_LIFETIME_MS,
    maxMicros: usdToMicros(config.WITHDRAW_MAX_USD),
    now: () => Date.now(),
    log: (event: { withdrawalId: string; outcome: string; why?: string }) =>
      event.outcome === 'refused' ? logger.warn(event, 'withdrawal not signed') : logger.info(event, 'withdrawal'),
  };
  logger.info({ hot_wallet: addressFromPrivateKey(privateKey) }, 'signer started');
  let stopping = values.once === true;
  process.once('SIGTERM', () => (stopping = true));
  process.once('SIGINT', () => (stopping = true));
  do {
    try {
      await signApprovedWithdrawals(deps);
    } catch (err) {
      logger.warn({ err }, 'signing pass failed; trying again');
    }
    if (!stopping) await new Promise((resolve) => setTimeout(resolve, config.SIGNER_POLL_MS));
  } while (!stopping);
  await ledger.drain();
  await db.knex.destroy();
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof StartupError ? err.message : String(err)}\n`);
  process.exit(err instanceof StartupError ? 2 : 1);
});

import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { FileChargeJournal } from '../adapters/charge-journal/file.js';
import { SqlIdempotencyStore } from '../adapters/idempotency/sql.js';
import { SqlKeyBudgetStore } from '../adapters/key-budget/sql.js';
import { openLedger } from '../adapters/ledger/open.js';
import { SqlUsageLogStore } from '../adapters/usage-log/sql.js';
import type { Config } from '../config.js';
import type { Database } from '../db/connect.js';
import { Billing } from '../domain/billing/billing.js';
import { Idempotency } from '../domain/billing/idempotency.js';
import { KeyBudget } from '../domain/billing/key-budget.js';
import { usdToMicros } from '../domain/billing/money.js';
import { createLossAlert, ledgerBatchObserver } from '../domain/billing/money-signals.js';
import { UsageReader } from '../domain/usage/usage-reader.js';

/** The contract's IdempotencyKey parameter promises replay of responses up to this size. */
const IDEMPOTENT_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/** The ledger, billing with its leases, charge journal and key budgets, idempotency keys and the usage log. */
export function buildBilling(db: Database, config: Config, now: () => number, logger: Logger, metrics: Registry) {
  const ledger = openLedger(db, { onBatch: ledgerBatchObserver(metrics) });
  const usageLog = new SqlUsageLogStore(db);
  const journal = new FileChargeJournal(config.CHARGE_JOURNAL_DIR);
  const leases = {
    maxMicros: usdToMicros(config.BILLING_LEASE_MAX_USD),
    ttlMs: config.BILLING_LEASE_TTL_MS,
    idleMs: config.BILLING_LEASE_IDLE_MS,
  };
  const keyBudget = new KeyBudget(new SqlKeyBudgetStore(db), { now, holdTtlMs: config.BILLING_HOLD_TTL_MS, logger });
  const billing = new Billing(ledger, {
    now,
    holdTtlMs: config.BILLING_HOLD_TTL_MS,
    logger,
    keyBudget,
    journal,
    onLoss: createLossAlert(logger, metrics),
    leases,
  });
  const idempotencyKeys = new SqlIdempotencyStore(db);
  const idempotency = new Idempotency(idempotencyKeys, ledger, {
    now,
    keyTtlMs: config.IDEMPOTENCY_KEY_TTL_MS,
    leaseMs: config.BILLING_HOLD_TTL_MS,
    maxBodyBytes: IDEMPOTENT_BODY_LIMIT_BYTES,
  });
  const usage = new UsageReader(usageLog, (accountId) => billing.settled(accountId));
  return { ledger, usageLog, journal, billing, keyBudget, idempotencyKeys, idempotency, usage };
}

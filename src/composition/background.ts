import type { Logger } from 'pino';
import type { BlobStore } from '../adapters/blob-store/index.js';
import type { ChargeJournal } from '../adapters/charge-journal/index.js';
import type { CredentialStore } from '../adapters/credential-store/index.js';
import type { IdempotencyStore } from '../adapters/idempotency/index.js';
import type { JobStore } from '../adapters/job-store/index.js';
import type { Ledger } from '../adapters/ledger/index.js';
import type { Config } from '../config.js';
import type { Billing } from '../domain/billing/billing.js';
import { retryJournaledCharges } from '../domain/billing/charge-retrier.js';
import type { JobRunner } from '../domain/jobs/job-runner.js';
import type { RentalAlerts } from '../domain/market/rental-alerts.js';
import { checkPendingDeposits, PENDING_CHECK_AFTER_MS } from '../domain/payments/deposits.js';
import type { PaymentsContext } from '../domain/payments/payments-context.js';
import { scanUsdtDeposits } from '../domain/payments/usdt-deposits.js';
import { advanceWithdrawals } from '../domain/payments/withdrawal-pipeline.js';
import type { WithdrawalsContext } from '../domain/payments/withdrawals-context.js';
import { Periodic } from '../lib/periodic.js';
import type { Market } from './deps.js';

/** How often billing leases are renewed and idle ones given back (well inside BILLING_LEASE_TTL_MS / 4). */
const LEASE_TICK_MS = 1_000;
const SSH_PROXY_SYNC_MS = 2_000;
/** Reliability moves by the minute over a 30-day window: every few minutes is plenty. */
const RELIABILITY_REFRESH_MS = 5 * 60_000;

export interface BackgroundParts {
  config: Config;
  logger: Logger;
  now: () => number;
  ledger: Ledger;
  billing: Billing;
  journal: ChargeJournal;
  idempotencyKeys: IdempotencyStore;
  market: Market;
  rentalAlerts: RentalAlerts;
  blobs: BlobStore;
  jobs: JobStore;
  jobRunner: JobRunner;
  credentials: CredentialStore;
  payments: PaymentsContext;
  withdrawals: WithdrawalsContext;
}

/** One background task: what it runs, what its failure is logged as, and how often. */
interface BackgroundTask {
  run: () => Promise<unknown>;
  failure: string;
  intervalMs: number;
}

/** Holds, idempotency keys, charges for delivered work, billing leases, and deposits whose news is to be fetched. */
function moneyTasks(p: BackgroundParts): BackgroundTask[] {
  const { config, now } = p;
  const { usdt } = p.payments;
  return [
    { run: () => p.ledger.expireHolds(now()), failure: 'hold sweep failed', intervalMs: config.HOLD_SWEEP_MS },
    {
      run: () => p.idempotencyKeys.expire(now()),
      failure: 'idempotency key sweep failed',
      intervalMs: config.HOLD_SWEEP_MS,
    },
    {
      run: () => retryJournaledCharges(p.journal, p.billing),
      failure: 'journaled charges still not posted',
      intervalMs: config.CHARGE_RETRY_MS,
    },
    { run: () => p.billing.tickLeases(), failure: 'billing lease upkeep failed', intervalMs: LEASE_TICK_MS },
    {
      run: () => checkPendingDeposits(p.payments),
      failure: 'pending deposit check failed',
      intervalMs: PENDING_CHECK_AFTER_MS,
    },
    ...(usdt === null
      ? []
      : [
          {
            run: () => scanUsdtDeposits(p.payments, usdt),
            failure: 'USDT deposit scan failed',
            intervalMs: config.TRON_POLL_MS,
          },
        ]),
    ...(p.withdrawals.rail === null
      ? []
      : [
          {
            run: () =>
              advanceWithdrawals(p.withdrawals, (err) => p.logger.warn({ err }, 'withdrawal step failed; retrying')),
            failure: 'withdrawal pipeline failed',
            intervalMs: config.WITHDRAW_POLL_MS,
          },
        ]),
  ];
}

/** Rentals, volumes, listings, alerts, reliability and the SSH proxy's ports. */
function marketTasks(p: BackgroundParts): BackgroundTask[] {
  const { config, now, market } = p;
  return [
    { run: () => market.rentals.sweep(), failure: 'rental sweep failed', intervalMs: config.RENTAL_SWEEP_MS },
    { run: () => market.volumes.sweep(), failure: 'volume sweep failed', intervalMs: config.RENTAL_SWEEP_MS },
    {
      run: () => market.machines.applyDuePriceRises(),
      failure: 'price rise upkeep failed',
      intervalMs: config.RENTAL_SWEEP_MS,
    },
    { run: () => p.rentalAlerts.run(), failure: 'rental alerts failed', intervalMs: config.ALERTS_INTERVAL_MS },
    {
      run: () => market.store.refreshReliability(now()),
      failure: 'machine reliability refresh failed',
      intervalMs: RELIABILITY_REFRESH_MS,
    },
    { run: () => market.sshProxy.sync(), failure: 'SSH proxy sync failed', intervalMs: SSH_PROXY_SYNC_MS },
  ];
}

/** Records past their time: hosted files, job records, sessions and used link nonces (an expired link is refused by
 * its signature already, so its nonce is worth nothing). */
function expirySweeps(p: BackgroundParts): BackgroundTask[] {
  const { config, now } = p;
  return [
    { run: () => p.blobs.sweep(now()), failure: 'hosted file sweep failed', intervalMs: config.BLOB_SWEEP_MS },
    { run: () => p.jobs.expire(now()), failure: 'job record sweep failed', intervalMs: config.HOLD_SWEEP_MS },
    {
      run: () => p.credentials.sweepExpiredSessions(now()),
      failure: 'session sweep failed',
      intervalMs: config.HOLD_SWEEP_MS,
    },
    {
      run: () => p.credentials.sweepExpiredNonces(now()),
      failure: 'used link sweep failed',
      intervalMs: config.HOLD_SWEEP_MS,
    },
  ];
}

function backgroundTasks(p: BackgroundParts): BackgroundTask[] {
  return [
    ...moneyTasks(p),
    ...marketTasks(p),
    ...expirySweeps(p),
    // Started once every kind of job has its work registered: a job claimed before that would sit idle under our lease.
    {
      run: () => p.jobRunner.resumeOrphans(),
      failure: 'claiming the jobs of dead workers failed',
      intervalMs: p.config.JOB_CLAIM_MS,
    },
  ];
}

/** Starts every background task on its timer (one run at a time each); `stop` waits for the runs in flight. */
export function startBackgroundTasks(parts: BackgroundParts): { stop(): Promise<void> } {
  const started = backgroundTasks(parts).map(({ run, failure, intervalMs }) => {
    const task = new Periodic(run, (err) => parts.logger.warn({ err }, failure));
    task.start(intervalMs);
    return task;
  });
  return {
    async stop() {
      for (const task of started) await task.stop();
    },
  };
}

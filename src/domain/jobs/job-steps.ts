import type { JobRecord, JobStore } from '../../adapters/job-store/index.js';
import { balanceMicros, type Ledger } from '../../adapters/ledger/index.js';
import { ApiError, orUnavailable } from '../../errors/api-error.js';
import type { Billing, CallDetails, Reservation } from '../billing/billing.js';
import { type Micros, microsToUsd } from '../billing/money.js';
import type { Principal } from '../keys/authenticator.js';
import { type JobFailure, jobFailure } from './job-failure.js';
import { retryUntil } from './retry-until.js';

/**
 * The steps every paid job shares (SPEC 3.1): the money held at kickoff kept in the record so any process can
 * charge or release it, lookups bound to the job's owner, the charge made once and recorded, the failure typed
 * and recorded with nothing charged.
 */
export interface JobStepDeps {
  jobs: JobStore;
  billing: Billing;
  ledger: Ledger;
  now: () => number;
  onUnexpected: (err: unknown, jobId: string) => void;
  /** This process as the owner of job leases: a worker's changes apply only while it holds the job's lease. */
  owner: string;
}

/** The owner as a job record keeps it: JSON has no bigint, so without the key's spend limit and the account's debt. */
type StoredOwner = Omit<Principal, 'account'> & { account: Omit<Principal['account'], 'debtMicros'> };

/**
 * The money of a job, in its record: who pays, and the hold that reserves it (`hold:<job_id>`), with `key_held`
 * when a key hold of the same id shadows it (key-budget.ts). The owner is kept without its key's spend limit and
 * its debt: both were checked at kickoff, and later steps only settle or release what was held.
 */
export interface HeldMoney {
  owner: StoredOwner;
  hold: { id: string; amount_micros: string; started_at_ms: number; key_held?: boolean };
}

function withoutDebt({ debtMicros: _debt, ...account }: Principal['account']): StoredOwner['account'] {
  return account;
}

export function heldMoney(reservation: Reservation): HeldMoney {
  return {
    owner: { ...reservation.principal, keySpendLimit: null, account: withoutDebt(reservation.principal.account) },
    hold: {
      id: reservation.holdId,
      amount_micros: String(reservation.amountMicros),
      started_at_ms: reservation.startedAtMs,
      key_held: reservation.keyHeld,
    },
  };
}

/** The reservation of a job, rebuilt from its record (by whichever process works on it). */
export function reservationOf(jobId: string, money: HeldMoney): Reservation {
  return {
    holdId: money.hold.id,
    requestId: jobId,
    principal: { ...money.owner, account: { ...money.owner.account, debtMicros: 0n } },
    amountMicros: BigInt(money.hold.amount_micros),
    startedAtMs: money.hold.started_at_ms,
    lease: null,
    keyHeld: money.hold.key_held === true,
  };
}

/** The caller's job of `kind`; another account's, an unknown or an expired one is 404 job_not_found (SPEC 7.2). */
export async function ownedJob(
  deps: JobStepDeps,
  principal: Principal,
  jobId: string,
  kind: string,
): Promise<JobRecord> {
  const job = await orUnavailable(() => deps.jobs.get(jobId, deps.now()), 'job store');
  if (job === null || job.accountId !== principal.accountId || job.kind !== kind) throw new ApiError('job_not_found');
  return job;
}

/**
 * Charges a delivered job once (a resumed job finds its hold posted and charges nothing more), then records it
 * completed with `answer(charged)`, the cost and the balance after it. Once charged, the job can only be recorded
 * completed, however long the store takes to answer.
 */
export async function completeCharged(
  deps: JobStepDeps,
  job: JobRecord,
  reservation: Reservation,
  cost: { micros: Micros; details: CallDetails },
  answer: (chargedMicros: Micros) => Record<string, unknown>,
  lost: AbortSignal,
): Promise<void> {
  const charged = await deps.billing.chargeOnce(reservation, cost.micros, cost.details);
  const balance = await deps.billing.read(job.accountId, () => deps.ledger.getBalance(job.accountId)).catch(() => null);
  const data = {
    ...answer(charged),
    cost_usd: microsToUsd(charged),
    ...(balance === null ? {} : { balance_usd: microsToUsd(balanceMicros(balance)) }),
  };
  // A worker that lost its lease meanwhile writes nothing: the new owner finds the hold posted and records it.
  await retryUntil(
    job.expiresAtMs,
    deps.now,
    lost,
    () =>
      deps.jobs.transition(job.id, ['pending', 'processing'], { status: 'completed', data }, deps.now(), deps.owner),
    (err) => deps.onUnexpected(err, job.id),
  );
}

/**
 * Records the job failed with its typed cause (SPEC 7.5), then gives its money back: nothing is charged. The money
 * is released only once the failure is recorded by the lease's owner, so a job another worker took over (and may
 * deliver and charge) keeps its hold.
 */
export async function failReleased(
  deps: JobStepDeps,
  job: JobRecord,
  reservation: Reservation,
  err: unknown,
  budgetMs: number,
  lost: AbortSignal,
): Promise<void> {
  if (!(err instanceof ApiError)) deps.onUnexpected(err, job.id);
  const failure = jobFailure(err, budgetMs);
  let recorded = false;
  await retryUntil(
    job.expiresAtMs,
    deps.now,
    lost,
    async () => {
      recorded =
        (await deps.jobs.transition(
          job.id,
          ['pending', 'processing'],
          { status: 'failed', data: { ...failure } },
          deps.now(),
          deps.owner,
        )) !== null;
    },
    (storeErr) => deps.onUnexpected(storeErr, job.id),
  );
  if (recorded) await deps.billing.release(reservation);
}

/** What every job's record shows of itself (SPEC 2.8). */
export interface JobShown {
  model: string;
  estimated_cost_usd: number;
  error?: string;
  error_code?: JobFailure['error_code'];
}

/**
 * The poll payload's common part: id, status, model, what was held, when the record goes, and on failure its reason
 * and typed cause (SPEC 2.8, 7.5).
 */
export function jobHead(
  job: JobRecord,
  data: JobShown,
): {
  job_id: string;
  status: JobRecord['status'];
  model: string;
  estimated_cost_usd: number;
  expires_at: number;
  error?: string;
  error_code?: JobFailure['error_code'];
} {
  const head = {
    job_id: job.id,
    status: job.status,
    model: data.model,
    estimated_cost_usd: data.estimated_cost_usd,
    expires_at: Math.floor(job.expiresAtMs / 1000),
  };
  if (job.status !== 'failed') return head;
  return {
    ...head,
    ...(data.error === undefined ? {} : { error: data.error }),
    ...(data.error_code === undefined ? {} : { error_code: data.error_code }),
  };
}

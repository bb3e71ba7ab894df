/**
 * Input checks every job store makes (malformed input is a programmer error, a throw, not a store outcome), and the
 * status and compare-and-set rules both stores apply.
 */
import {
  JOB_STATUSES,
  type JobLease,
  type JobPatch,
  type JobRecord,
  type JobStatus,
  TERMINAL_STATUSES,
} from './index.js';

export function assertValidTime(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer of epoch ms (got ${value})`);
}

function assertValidStatus(name: string, status: unknown): void {
  if (!JOB_STATUSES.includes(status as JobStatus))
    throw new RangeError(`${name} must be a job status (got ${JSON.stringify(status)})`);
}

function assertPlainObject(name: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new TypeError(`${name} must be an object`);
}

export function assertValidJob(job: JobRecord): void {
  for (const name of ['id', 'accountId', 'kind'] as const) {
    if (typeof job[name] !== 'string' || job[name] === '')
      throw new TypeError(`job.${name} must be a non-empty string`);
  }
  assertValidStatus('job.status', job.status);
  for (const name of ['createdAtMs', 'updatedAtMs', 'expiresAtMs'] as const) assertValidTime(`job.${name}`, job[name]);
  // A record born expired is a caller's mistake.
  if (job.expiresAtMs <= job.createdAtMs)
    throw new RangeError(`job.expiresAtMs must be after job.createdAtMs (got ${job.expiresAtMs} ≤ ${job.createdAtMs})`);
  assertPlainObject('job.data', job.data);
}

export function assertValidTransition(from: readonly JobStatus[], patch: JobPatch, nowMs: number): void {
  assertValidTime('nowMs', nowMs);
  if (!Array.isArray(from)) throw new TypeError('from must be an array of job statuses');
  from.forEach((status, i) => assertValidStatus(`from[${i}]`, status));
  if (patch.status !== undefined) assertValidStatus('patch.status', patch.status);
  if (patch.data !== undefined) assertPlainObject('patch.data', patch.data);
}

export function assertValidLease(lease: JobLease): void {
  if (typeof lease.owner !== 'string' || lease.owner === '')
    throw new TypeError('lease.owner must be a non-empty string');
  assertValidTime('lease.untilMs', lease.untilMs);
}

export function isTerminalStatus(status: JobStatus): boolean {
  return TERMINAL_STATUSES.includes(status);
}

/** Whether a record's data holds what a patch `expect`s. */
export function holdsExpected(data: Record<string, unknown>, expected: JobPatch['expect']): boolean {
  return Object.entries(expected ?? {}).every(([key, value]) => (data[key] ?? null) === value);
}

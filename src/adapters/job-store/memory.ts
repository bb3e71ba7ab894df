/**
 * In-process twin of the job-store port (SPEC 3.1): the embedded default (DESIGN 3). Records are kept as JSON
 * text, so every read and write is a copy and the JSON rules (undefined dropped, Dates as strings) are exactly
 * those of the Redis implementation, which also stores JSON.
 *
 * `transition` runs synchronously between awaits, so the compare-and-set is atomic within the process, as the
 * Redis script is across processes.
 *
 * Expiry follows the caller's clock, never a timer's: a timer would read the wall clock while tests (and the
 * port) inject `nowMs`. An expired record is dropped when it is read, and once per sweep interval of caller
 * time every expired record is dropped, so jobs nobody polls again do not accumulate.
 */
import { JOB_STATUSES, type JobPatch, type JobRecord, type JobStatus, type JobStore } from './index.js';

export interface MemoryJobStoreOptions {
  /** Caller time between full sweeps of expired records. Default 60 s: far below the shortest retention (15 min). */
  sweepIntervalMs?: number;
}

interface Entry {
  expiresAtMs: number;
  json: string;
}

export class MemoryJobStore implements JobStore {
  readonly #entries = new Map<string, Entry>();
  readonly #sweepIntervalMs: number;
  #lastSweepMs = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryJobStoreOptions = {}) {
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 60_000;
    if (!Number.isSafeInteger(this.#sweepIntervalMs) || this.#sweepIntervalMs <= 0) {
      throw new RangeError(`sweepIntervalMs must be a positive integer (got ${this.#sweepIntervalMs})`);
    }
  }

  /** Records held in memory, expired ones not yet swept included (for metrics and tests). */
  get size(): number {
    return this.#entries.size;
  }

  async create(job: JobRecord): Promise<boolean> {
    assertValidJob(job);
    this.#sweepIfDue(job.createdAtMs);
    // A record still live at the new job's clock blocks the id, as the Redis key does until its TTL runs out.
    if (this.#live(job.id, job.createdAtMs) !== undefined) return false;
    const { id, accountId, kind, status, createdAtMs, updatedAtMs, expiresAtMs, data } = job;
    // Only the port's fields, as redis.ts stores them: a caller's extra properties must not survive here alone.
    const json = JSON.stringify({ id, accountId, kind, status, createdAtMs, updatedAtMs, expiresAtMs, data } satisfies JobRecord);
    this.#entries.set(id, { expiresAtMs, json });
    return true;
  }

  async get(id: string, nowMs: number): Promise<JobRecord | null> {
    assertValidTime('nowMs', nowMs);
    this.#sweepIfDue(nowMs);
    const entry = this.#live(id, nowMs);
    return entry === undefined ? null : (JSON.parse(entry.json) as JobRecord);
  }

  async transition(id: string, from: readonly JobStatus[], patch: JobPatch, nowMs: number): Promise<JobRecord | null> {
    assertValidTransition(from, patch, nowMs);
    this.#sweepIfDue(nowMs);
    const entry = this.#live(id, nowMs);
    if (entry === undefined) return null;
    const current = JSON.parse(entry.json) as JobRecord;
    if (!from.includes(current.status)) return null;
    // Through JSON first, so an undefined value in the patch keeps the old one, as in redis.ts.
    const patchData = JSON.parse(JSON.stringify(patch.data ?? {})) as Record<string, unknown>;
    const next: JobRecord = { ...current, status: patch.status ?? current.status, updatedAtMs: nowMs, data: { ...current.data, ...patchData } };
    const json = JSON.stringify(next);
    this.#entries.set(id, { expiresAtMs: entry.expiresAtMs, json });
    return JSON.parse(json) as JobRecord;
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }

  /** The entry of `id` unless it expired at `nowMs`; an expired one is dropped on the way. */
  #live(id: string, nowMs: number): Entry | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs > nowMs) return entry;
    this.#entries.delete(id);
    return undefined;
  }

  /** abs(): a clock that jumps back (another caller's, or a test's) must not postpone sweeps forever. */
  #sweepIfDue(nowMs: number): void {
    if (Math.abs(nowMs - this.#lastSweepMs) < this.#sweepIntervalMs) return;
    this.#lastSweepMs = nowMs;
    for (const [id, entry] of this.#entries) {
      if (entry.expiresAtMs <= nowMs) this.#entries.delete(id);
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Input checks shared with redis.ts: malformed input is a programmer error (a throw), not a store outcome.
// ---------------------------------------------------------------------------------------------------------

export function assertValidTime(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer of epoch ms (got ${value})`);
}

function assertValidStatus(name: string, status: unknown): void {
  if (!JOB_STATUSES.includes(status as JobStatus)) throw new RangeError(`${name} must be a job status (got ${JSON.stringify(status)})`);
}

function assertPlainObject(name: string, value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new TypeError(`${name} must be an object`);
}

export function assertValidJob(job: JobRecord): void {
  for (const name of ['id', 'accountId', 'kind'] as const) {
    if (typeof job[name] !== 'string' || job[name] === '') throw new TypeError(`job.${name} must be a non-empty string`);
  }
  assertValidStatus('job.status', job.status);
  for (const name of ['createdAtMs', 'updatedAtMs', 'expiresAtMs'] as const) assertValidTime(`job.${name}`, job[name]);
  // Redis needs a positive TTL (expiresAtMs − createdAtMs); a record born expired is a caller's mistake.
  if (job.expiresAtMs <= job.createdAtMs) throw new RangeError(`job.expiresAtMs must be after job.createdAtMs (got ${job.expiresAtMs} ≤ ${job.createdAtMs})`);
  assertPlainObject('job.data', job.data);
}

export function assertValidTransition(from: readonly JobStatus[], patch: JobPatch, nowMs: number): void {
  assertValidTime('nowMs', nowMs);
  if (!Array.isArray(from)) throw new TypeError('from must be an array of job statuses');
  from.forEach((status, i) => assertValidStatus(`from[${i}]`, status));
  if (patch.status !== undefined) assertValidStatus('patch.status', patch.status);
  if (patch.data !== undefined) assertPlainObject('patch.data', patch.data);
}

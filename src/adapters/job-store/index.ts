/**
 * The job-store port: records of async jobs (SPEC 3.1: video, music, image jobs, audio, restoration; SPEC 4.2:
 * chat jobs for clients that cannot use SSE), polled by any gateway process. They live in the database (SQLite
 * embedded, PostgreSQL at scale), so a job outlives the process that started it.
 *
 * Work on a job is owned through a lease (`JobLease`): the process that kicks a job off takes it with the record;
 * whoever holds an unexpired lease is the one worker advancing the job, renews it while it works, and a lease
 * that runs out (its process died) lets another worker claim the job and resume it from what its record says.
 *
 * SPEC 3.1 states: pending, processing, completed, failed. A terminal payload (completed or failed) is replayed
 * on every poll until the record expires; after that a poll answers 404 `job_not_found`, which is why `get`
 * answers null for an expired record. The retention is per kind and decided by the caller through `expiresAtMs`
 * (SPEC 3.1, 8: images 15 min, video 2 h, music / audio / restoration 60 min; chat jobs: not shown by the spec).
 *
 * Times come from the caller (`nowMs`, `createdAtMs`): tests inject a clock, and every process decides expiry
 * by the same rule, `expiresAtMs <= nowMs` means gone.
 */

/** SPEC 2.8, 3.1. */
export type JobStatus = 'pending' | 'processing' | 'completed' | 'failed';

export const JOB_STATUSES: readonly JobStatus[] = ['pending', 'processing', 'completed', 'failed'];

/** SPEC 3.1: payloads in these states are replayed until the record expires and never change by themselves. */
export const TERMINAL_STATUSES: readonly JobStatus[] = ['completed', 'failed'];

export interface JobRecord {
  /** Stable service job id (`job_…`); SPEC 2.8: the same across internal fallbacks. */
  id: string;
  /** Owner: a poll by another account must not see the job. */
  accountId: string;
  /** `image`, `video`, `music`, `audio`, `restoration`, `chat`, …: decides retention and the poll payload. */
  kind: string;
  status: JobStatus;
  /** Kickoff time: SPEC 3.1 measures retention "since kickoff". */
  createdAtMs: number;
  updatedAtMs: number;
  /** First instant at which the record is gone (SPEC 3.1 "record expiry"); must be after createdAtMs. */
  expiresAtMs: number;
  /**
   * Kind-specific payload (route state, result, error, error_code, cost). JSON-serialisable: it is stored as
   * JSON by every implementation, so what `JSON.stringify` drops (undefined values) is dropped here too.
   */
  data: Record<string, unknown>;
}

/** Who works on a job, and until when (epoch ms) nobody else may. */
export interface JobLease {
  owner: string;
  untilMs: number;
}

export interface JobPatch {
  status?: JobStatus;
  /** Merged shallowly into `data`: top-level keys replace, others are kept; an undefined value changes nothing. */
  data?: Record<string, unknown>;
  /**
   * Compared with `data` as part of the compare-and-set: each top-level key must hold this value now (null matches
   * an absent key too), or nothing changes. How a record is claimed once (a draft's one final, SPEC 3.2).
   */
  expect?: Readonly<Record<string, string | number | boolean | null>>;
}

export interface JobStore {
  /**
   * Stores a new record, leased to `lease` when given (the kicking-off process works on it at once; without a
   * lease any worker may claim it). False when the id exists already (the existing record is left untouched).
   * Every implementation stores a copy: later changes to `job` do not reach the store.
   */
  create(job: JobRecord, lease?: JobLease): Promise<boolean>;

  /** A copy of the record; null when absent or expired (`expiresAtMs <= nowMs`): SPEC 3.1, poll answers 404. */
  get(id: string, nowMs: number): Promise<JobRecord | null>;

  /**
   * Atomic compare-and-set, across processes too: applies `patch` (and sets `updatedAtMs = nowMs`) only when
   * the current status is one of `from` and its data holds what `patch.expect` names; returns the new record, or null when the record is absent, expired
   * or in a status not in `from`, or its data not as expected (an empty `from` never matches).
   *
   * Terminal states (completed, failed) never change again unless `from` names them: SPEC 3.1 replays the
   * terminal payload on every later poll.
   *
   * This CAS is what makes SPEC 3.1 "charge made once, on the poll that first delivers the result" safe when
   * several processes poll the same job at once: every poller that sees the upstream deliver tries
   * `transition(id, ['processing'], { status: 'completed', … })`, exactly one gets the record back, and only
   * that one charges (the ledger's `charge:<job_id>` idempotency id is the second line of defence, DESIGN 3).
   * The same goes for `failed` (nothing charged, SPEC 3.1) racing a late delivery: whoever wins decides.
   *
   * The expiry time is not changed: retention counts from kickoff (SPEC 3.1), not from the last update.
   *
   * `owner`: a worker's change, applied only while that worker holds the job's lease, so a worker that lost its
   * lease to another (its renewals failed) cannot overwrite what the new owner does.
   */
  transition(
    id: string,
    from: readonly JobStatus[],
    patch: JobPatch,
    nowMs: number,
    owner?: string,
  ): Promise<JobRecord | null>;

  /**
   * Leases to `lease.owner` up to `limit` jobs that are neither terminal nor expired and whose lease has run out
   * (or that never had one), oldest first, and answers them. Atomic across processes: a job is claimed by one.
   */
  claim(lease: JobLease, nowMs: number, limit: number): Promise<JobRecord[]>;

  /**
   * Leases one job to `lease.owner` if it is neither terminal nor expired and nobody holds an unexpired lease on it
   * (a worker woken for it); null otherwise. Atomic across processes, as `claim`.
   */
  claimOne(id: string, lease: JobLease, nowMs: number): Promise<JobRecord | null>;

  /**
   * Extends the lease `lease.owner` holds on a job (even one that ran out, as long as nobody claimed it since);
   * false when it no longer holds it (claimed by another worker, terminal, or gone).
   */
  renew(id: string, lease: JobLease, nowMs: number): Promise<boolean>;

  /** Gives a lease back (shutdown): the job may be claimed at once. A no-op unless `owner` holds it. */
  release(id: string, owner: string): Promise<void>;

  /** Deletes the records past their expiry; answers how many. */
  expire(nowMs: number): Promise<number>;

  /** Releases what the store owns. */
  close(): Promise<void>;
}

import type { JobQueue } from '../../adapters/job-queue/index.js';
import type { JobRecord, JobStore } from '../../adapters/job-store/index.js';
import { newId } from '../../lib/ids.js';

/** What advances the jobs of one kind. */
export interface JobWork {
  /**
   * Takes a job this worker holds the lease of to a terminal state, resuming from whatever its record says (it
   * may have been started by a process that died). `lost` aborts when the lease is lost to another worker: stop
   * before the next step, whose compare-and-set would fail anyway.
   */
  advance(job: JobRecord, lost: AbortSignal): Promise<void>;
}

export interface JobRunnerSettings {
  /** How long a lease lasts unless renewed; renewed every third of it while the job is worked on. */
  leaseMs: number;
  /** Most jobs claimed from dead workers per scan, and most jobs worked on at once from the queue. */
  claimBatch: number;
  now: () => number;
  onUnexpected: (err: unknown, jobId: string) => void;
}

/**
 * Dispatch of async jobs (SPEC 3.1; DESIGN 3). A job is created leased to the process that kicks it off, which may do
 * a first step while its client waits; then it is handed to the job queue (in this process on the embedded default,
 * BullMQ over Redis at scale), and whichever worker is woken claims its lease in the job store and advances it,
 * renewing the lease meanwhile. A process that dies stops renewing; once its leases run out, `resumeOrphans` (run on
 * a timer by every process) claims the jobs and advances them from their records: a job is never lost with its
 * process, and the store's lease makes sure one worker at a time works on it.
 */
export class JobRunner {
  /** This process, as the owner of leases; unique per process start. */
  readonly owner = newId('worker');
  private readonly works = new Map<string, JobWork>();
  private readonly running = new Map<string, { lost: AbortController; renewal: NodeJS.Timeout }>();
  private closed = false;

  constructor(
    private readonly store: JobStore,
    private readonly queue: JobQueue,
    private readonly settings: JobRunnerSettings,
  ) {}

  register(kind: string, work: JobWork): void {
    this.works.set(kind, work);
  }

  /** Starts taking wake-ups from the queue: once every kind of job has its work registered. */
  start(): void {
    this.queue.start(async (jobId) => this.wake(jobId), this.settings.claimBatch, this.settings.onUnexpected);
  }

  /**
   * Stores a new job leased to this process and works on it here, not through the queue (a job whose first steps are
   * in this process's memory). False when its id was taken.
   */
  async launch(job: JobRecord): Promise<boolean> {
    if (!(await this.store.create(job, this.lease()))) return false;
    void this.run(job);
    return true;
  }

  /**
   * Stores a new job leased to this process without working on it yet (a kickoff that does a first step while the
   * client waits, renewing the lease meanwhile); then `dispatch`, or `giveBack` if the kickoff failed. False when
   * its id was taken.
   */
  async create(job: JobRecord): Promise<boolean> {
    if (!(await this.store.create(job, this.lease()))) return false;
    this.hold(job.id);
    return true;
  }

  /**
   * Hands a job created here to the queue: its lease is given back for the worker the queue wakes to claim. If the
   * queue cannot be reached, the lease scan of some process finds the job instead (it is released either way).
   */
  async dispatch(id: string): Promise<void> {
    this.stop(id, false);
    await this.store.release(id, this.owner);
    await this.queue.enqueue(id);
  }

  /** Gives back the lease of a job created here and not worked on. */
  async giveBack(id: string): Promise<void> {
    this.stop(id, false);
    await this.store.release(id, this.owner);
  }

  /**
   * Claims the jobs whose workers went away (their leases ran out) and resumes them, as many as this process has
   * room for; answers how many.
   */
  async resumeOrphans(): Promise<number> {
    const room = this.settings.claimBatch - this.running.size;
    if (this.closed || room <= 0) return 0;
    const jobs = await this.store.claim(this.lease(), this.settings.now(), room);
    for (const job of jobs) void this.run(job);
    return jobs.length;
  }

  /** Jobs this process is working on now. */
  get active(): number {
    return this.running.size;
  }

  /**
   * Shutdown: stops the work in progress (it stops at its next step) and gives every lease back, so another process
   * resumes the jobs at once, then closes the queue without waiting for the work it delivered.
   */
  async close(): Promise<void> {
    this.closed = true;
    const ids = [...this.running.keys()];
    for (const id of ids) this.stop(id, true);
    await Promise.all(
      ids.map((id) => this.store.release(id, this.owner).catch((err: unknown) => this.settings.onUnexpected(err, id))),
    );
    await this.queue.close();
  }

  private lease() {
    return { owner: this.owner, untilMs: this.settings.now() + this.settings.leaseMs };
  }

  /** A wake-up from the queue: the job is worked on here if its lease can be had (else someone else has it). */
  private async wake(jobId: string): Promise<void> {
    if (this.closed) return;
    const job = await this.store.claimOne(jobId, this.lease(), this.settings.now());
    if (job !== null) await this.run(job);
  }

  /** Keeps this process's lease on a job renewed until `stop`; answers what tells the work it lost the lease. */
  private hold(id: string): AbortSignal {
    const lost = new AbortController();
    const renewal = setInterval(() => void this.renew(id), Math.max(1, Math.floor(this.settings.leaseMs / 3)));
    renewal.unref();
    this.running.set(id, { lost, renewal });
    return lost.signal;
  }

  /** Works on a job this process holds the lease of, renewing the lease meanwhile; settles when the work stops. */
  private async run(job: JobRecord): Promise<void> {
    const work = this.works.get(job.kind);
    if (work === undefined || this.running.has(job.id)) return;
    const lost = this.hold(job.id);
    try {
      await work.advance(job, lost);
    } catch (err) {
      this.settings.onUnexpected(err, job.id);
    } finally {
      this.stop(job.id, false);
    }
  }

  private async renew(id: string): Promise<void> {
    try {
      if (!(await this.store.renew(id, this.lease(), this.settings.now()))) this.stop(id, true);
    } catch (err) {
      // The store is unreachable: keep working; the next renewal may get through before the lease runs out.
      this.settings.onUnexpected(err, id);
    }
  }

  private stop(id: string, abort: boolean): void {
    const entry = this.running.get(id);
    if (entry === undefined) return;
    clearInterval(entry.renewal);
    if (abort) entry.lost.abort();
    this.running.delete(id);
  }
}

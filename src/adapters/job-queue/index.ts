/**
 * The job-queue port: wake-ups for async jobs ("work on job X"), delivered to one worker among the gateway
 * processes (DESIGN 3: in-process on the embedded default; BullMQ on Redis at scale, research/media.md B4). The job's
 * state is never in the queue: it lives in the job store, and a worker woken for a job first claims its lease there,
 * so a wake-up delivered twice, late, or to a process that is not the job's owner does no harm.
 */
export interface JobQueue {
  /** Asks for `jobId` to be worked on; a wake-up for a job that is already queued is not queued again. */
  enqueue(jobId: string): Promise<void>;
  /**
   * Starts delivering wake-ups to `work` (at most `concurrency` at once in this process); a wake-up is done when the
   * promise `work` returns settles. A failing `work` is reported to `onError`, not retried (the lease scan is).
   */
  start(
    work: (jobId: string) => Promise<void>,
    concurrency: number,
    onError: (err: unknown, jobId: string) => void,
  ): void;
  /** Stops delivering and releases what the queue owns. */
  close(): Promise<void>;
}

/**
 * Waits for a job (media, chat, restoration: SPEC 2.6, 7.5) by polling its record with backoff until it is
 * `completed` or `failed`. Nothing is charged for a failed job, so a failure is thrown as `JobFailedError` with
 * the job's `error_code`. The wait ends early on the caller's `signal`; the job itself goes on (the service has
 * no cancel), and the same id can be polled again later.
 */
import { errorFromFailure, GatewayError, JobFailedError } from './errors.js';
import { sleep } from './retrying-fetch.js';

/** The fields every job record of the contract shares. */
export interface JobRecord {
  job_id: string;
  status: string;
  progress?: number | null;
  error?: string;
  error_code?: string;
}

export interface WaitOptions<T extends JobRecord> {
  signal?: AbortSignal;
  /** Called with every record read, so a caller can show `status` and `progress`. */
  onProgress?: (job: T) => void;
  /** First pause between polls in ms (default 1000), growing by half each time up to `maxIntervalMs` (5000). */
  intervalMs?: number;
  maxIntervalMs?: number;
  /** Give up after this long (ms) with `GatewayError` code `job_wait_timeout`; default: wait as long as needed. */
  timeoutMs?: number;
}

const finished = (status: string) => status === 'completed' || status === 'failed';

export async function waitForJob<T extends JobRecord>(
  read: (signal?: AbortSignal) => Promise<T>,
  options: WaitOptions<T> = {},
): Promise<T> {
  const maxInterval = options.maxIntervalMs ?? 5_000;
  const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  let interval = options.intervalMs ?? 1_000;
  for (;;) {
    const job = await read(options.signal);
    options.onProgress?.(job);
    if (job.status === 'failed') {
      throw new JobFailedError(job.job_id, job.error_code ?? 'generation_failed', job.error ?? 'the job failed');
    }
    if (finished(job.status)) return job;
    if (Date.now() + interval > deadline) throw timedOut(job);
    try {
      await sleep(interval, options.signal);
    } catch (cause) {
      throw errorFromFailure(cause, options.signal);
    }
    interval = Math.min(maxInterval, Math.round(interval * 1.5));
  }
}

const timedOut = (job: JobRecord) =>
  new GatewayError({
    status: 0,
    code: 'job_wait_timeout',
    message: `job ${job.job_id} is still ${job.status}; poll it again later`,
    retryable: true,
    meta: { job_id: job.job_id, status: job.status },
  });

import type { JobQueue } from './index.js';

/** The embedded default's job queue, and the port's in-memory twin: wake-ups delivered in this process, in order. */
export class InProcessJobQueue implements JobQueue {
  private readonly waiting: string[] = [];
  private readonly queued = new Set<string>();
  private running = 0;
  private consumer: {
    work: (jobId: string) => Promise<void>;
    concurrency: number;
    onError: (err: unknown, jobId: string) => void;
  } | null = null;

  async enqueue(jobId: string): Promise<void> {
    if (this.queued.has(jobId)) return;
    this.queued.add(jobId);
    this.waiting.push(jobId);
    this.pump();
  }

  start(
    work: (jobId: string) => Promise<void>,
    concurrency: number,
    onError: (err: unknown, jobId: string) => void,
  ): void {
    this.consumer = { work, concurrency, onError };
    this.pump();
  }

  async close(): Promise<void> {
    this.consumer = null;
    this.waiting.length = 0;
    this.queued.clear();
  }

  private pump(): void {
    const consumer = this.consumer;
    while (consumer !== null && this.running < consumer.concurrency && this.waiting.length > 0) {
      const jobId = this.waiting.shift()!;
      this.queued.delete(jobId);
      this.running += 1;
      void consumer
        .work(jobId)
        .catch((err: unknown) => consumer.onError(err, jobId))
        .finally(() => {
          this.running -= 1;
          this.pump();
        });
    }
  }
}

import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { JobQueue } from './index.js';

const QUEUE_NAME = 'gateway-jobs';

/**
 * Wake-ups on BullMQ (6.7) over Redis: any process's worker may take one. The BullMQ job id is the gateway's job id,
 * so a job queued twice is queued once; finished wake-ups are not kept. BullMQ gets a connection of its own, through
 * ioredis, the client it is built and tested on (with node-redis 6 its worker's blocking reads time out into a busy
 * loop); the rate limiter's node-redis client fails fast while Redis is away, which a queue worker must not.
 */
export class BullMqJobQueue implements JobQueue {
  private readonly queue: Queue;
  private worker: Worker | null = null;

  private constructor(
    /** The producer's: fails fast while Redis is away, so a kickoff never waits on it (the lease scan catches up). */
    private readonly producer: Redis,
    /** The worker's: waits on Redis indefinitely (BullMQ's requirement for workers). */
    private readonly consumer: Redis,
    /** BullMQ's key prefix (JOB_QUEUE_PREFIX). */
    private readonly prefix: string,
  ) {
    this.queue = new Queue(QUEUE_NAME, { connection: producer, prefix });
  }

  static async connect(url: string, prefix: string, onError: (err: unknown) => void): Promise<BullMqJobQueue> {
    const producer = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const consumer = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: null });
    for (const client of [producer, consumer]) client.on('error', onError);
    try {
      await Promise.all([producer.connect(), consumer.connect()]);
    } catch (err) {
      producer.disconnect();
      consumer.disconnect();
      throw err;
    }
    return new BullMqJobQueue(producer, consumer, prefix);
  }

  async enqueue(jobId: string): Promise<void> {
    await this.queue.add('work', { jobId }, { jobId, removeOnComplete: true, removeOnFail: true });
  }

  start(
    work: (jobId: string) => Promise<void>,
    concurrency: number,
    onError: (err: unknown, jobId: string) => void,
  ): void {
    this.worker = new Worker(
      QUEUE_NAME,
      async (job) => {
        const jobId = String((job.data as { jobId: unknown }).jobId);
        await work(jobId).catch((err: unknown) => onError(err, jobId));
      },
      { connection: this.consumer, prefix: this.prefix, concurrency },
    );
    this.worker.on('error', (err) => onError(err, '(queue)'));
  }

  /** Stops taking wake-ups without waiting for the work delivered (the runner has given its leases back). */
  async close(): Promise<void> {
    await this.worker?.close(true);
    await this.queue.close();
    await Promise.all([this.producer.quit(), this.consumer.quit()]);
  }
}

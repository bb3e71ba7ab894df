import { Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { closeRedis, openRedis } from '../redis/connect.js';
import type { JobQueue } from './index.js';

const QUEUE_NAME = 'gateway-jobs';

/**
 * Wake-ups on BullMQ (6.7) over Redis: any process's worker may take one. The BullMQ job id is the gateway's job id,
 * so a job queued twice is queued once; finished wake-ups are not kept. BullMQ gets connections of its own (opened
 * by redis/connect.ts, as every Redis connection is): the producer fails fast while Redis is away, as the rate
 * limiter's does, which a queue worker must not.
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
    /** Redis going away is reported here, as the connections' own errors are: the lease scan covers the gap. */
    private readonly onRedisError: (err: unknown) => void,
  ) {
    this.queue = new Queue(QUEUE_NAME, { connection: producer, prefix });
    // Without a listener, BullMQ prints each reconnect failure's stack on stderr.
    this.queue.on('error', onRedisError);
  }

  static async connect(url: string, prefix: string, onError: (err: unknown) => void): Promise<BullMqJobQueue> {
    const producer = openRedis(url, 'fail-fast', onError);
    const consumer = openRedis(url, 'wait', onError);
    try {
      await Promise.all([producer.connect(), consumer.connect()]);
    } catch (err) {
      producer.disconnect();
      consumer.disconnect();
      throw err;
    }
    return new BullMqJobQueue(producer, consumer, prefix, onError);
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
    // The worker's 'error' is its connection's, not a job's (a job's failure is caught above).
    this.worker.on('error', this.onRedisError);
  }

  /** Stops taking wake-ups without waiting for the work delivered (the runner has given its leases back). */
  async close(): Promise<void> {
    await this.worker?.close(true);
    await this.queue.close();
    await Promise.all([closeRedis(this.producer), closeRedis(this.consumer)]);
  }
}
